package serreg;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a contiguous frame (docs/FORMAT.md section 4) and checks every rule of its layout.
 *
 * <p>Zero-copy: the in-band section and the OOB buffers of the returned result are views
 * ({@link ByteBuffer#slice}) of the frame buffer, so a frame in a direct or memory-mapped buffer
 * is never copied. Those views share the frame's memory and its read-only-ness.
 */
public final class FrameReader {
    private FrameReader() {
    }

    /**
     * Reads the frame that starts at {@code frame}'s position. The frame may be followed by other
     * data; {@link #frameLength} tells where it ends.
     */
    public static SerializationResult read(ByteBuffer frame) {
        ByteBuffer buf = frame.slice().order(ByteOrder.LITTLE_ENDIAN);
        long available = buf.remaining();
        require(available >= FrameLayout.HEADER_SIZE, "a frame needs a 32-byte header but only "
                + available + " bytes are there", 0);
        for (int i = 0; i < FrameWriter.MAGIC.length; i++) {
            require(buf.get(i) == FrameWriter.MAGIC[i], "bad magic: a frame starts with \"SREG\"", i);
        }
        require(buf.get(4) == FrameWriter.VERSION, "unsupported format version " + (buf.get(4) & 0xff)
                + " (this reader knows version 1)", 4);
        require(buf.get(5) == 0, "unknown flag bits 0x" + Integer.toHexString(buf.get(5) & 0xff), 5);
        require(buf.getShort(6) == 0, "reserved bytes 6..7 are not zero", 6);
        long k = Integer.toUnsignedLong(buf.getInt(8));
        require(buf.getInt(12) == 0, "reserved bytes 12..15 are not zero", 12);
        long inBandLength = buf.getLong(16);
        long totalLength = buf.getLong(24);
        require(inBandLength >= ClassIdHash.SIZE && inBandLength < Integer.MAX_VALUE,
                "in-band length " + Long.toUnsignedString(inBandLength) + " is not between 8 and 2^31", 16);
        require(totalLength >= 0 && totalLength <= available, "total frame length "
                + Long.toUnsignedString(totalLength) + " exceeds the " + available + " bytes available", 24);
        long tableEnd = FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * k;
        require(tableEnd <= totalLength, "an OOB table of " + k + " entries does not fit in the frame", 8);

        long[] lengths = new long[(int) k];
        for (int i = 0; i < k; i++) {
            lengths[i] = buf.getLong(FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * i + 8);
            require(lengths[i] >= 0 && lengths[i] <= totalLength, "OOB buffer " + i + " has length "
                    + Long.toUnsignedString(lengths[i]) + ", more than the frame",
                    FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * i + 8);
        }
        FrameLayout expected = FrameLayout.of(inBandLength, lengths);
        for (int i = 0; i < k; i++) {
            long at = FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * i;
            long offset = buf.getLong((int) at);
            require(offset == expected.bufferOffsets()[i], "OOB buffer " + i + " is at offset "
                    + Long.toUnsignedString(offset) + " but the layout puts it at " + expected.bufferOffsets()[i], at);
        }
        require(expected.totalLength() == totalLength, "total frame length " + totalLength
                + " disagrees with the layout, which ends at " + expected.totalLength(), 24);
        checkPaddingIsZero(buf, expected);

        ByteBuffer inBand = buf.slice((int) expected.inBandOffset(), (int) inBandLength);
        List<ByteBuffer> oob = new ArrayList<>((int) k);
        for (int i = 0; i < k; i++) {
            oob.add(buf.slice((int) expected.bufferOffsets()[i], (int) lengths[i]));
        }
        return new SerializationResult(inBand, oob);
    }

    /** The total length recorded in the header of the frame at {@code frame}'s position. */
    public static long frameLength(ByteBuffer frame) {
        require(frame.remaining() >= FrameLayout.HEADER_SIZE, "a frame needs a 32-byte header", 0);
        return frame.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(frame.position() + 24);
    }

    private static void checkPaddingIsZero(ByteBuffer buf, FrameLayout layout) {
        long end = layout.inBandOffset() + layout.inBandLength();
        for (int i = 0; i < layout.bufferOffsets().length; i++) {
            for (long p = end; p < layout.bufferOffsets()[i]; p++) {
                require(buf.get((int) p) == 0, "padding byte is not zero", p);
            }
            end = layout.bufferOffsets()[i] + layout.bufferLengths()[i];
        }
    }

    private static void require(boolean ok, String what, long offset) {
        if (!ok) {
            throw new FrameFormatException("invalid frame: " + what, offset);
        }
    }
}
