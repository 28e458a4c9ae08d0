package serreg.wire;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A frame read by {@link FrameReader}: its in-band section (ClassIDHash + serializer in-band) and
 * its OOB buffers, all views of the frame's memory, and whether it was signed. The twin of
 * Python's {@code serreg.wire.frame.FrameView}.
 *
 * @param inBand the in-band section, a view of the frame
 * @param outOfBand the OOB buffers in order, views of the frame
 * @param signed whether the frame carries a signature trailer (checked only when read with a key)
 */
public record FrameView(ByteBuffer inBand, List<ByteBuffer> outOfBand, boolean signed) {
    /**
     * The in-band section.
     *
     * @return a fresh view each call (position 0), so readers never disturb each other
     */
    @Override
    public ByteBuffer inBand() {
        return inBand.duplicate();
    }

    /**
     * The OOB buffers.
     *
     * @return fresh views each call, in order
     */
    @Override
    public List<ByteBuffer> outOfBand() {
        return outOfBand.isEmpty() ? List.of() : outOfBand.stream().map(ByteBuffer::duplicate).toList();
    }
}
