package serreg;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

/** Writes a {@link SerializationResult} as a contiguous frame (docs/FORMAT.md section 4). */
public final class FrameWriter {
    static final byte[] MAGIC = {'S', 'R', 'E', 'G'};
    static final byte VERSION = 1;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(FrameLayout.ALIGNMENT).asReadOnlyBuffer();

    private FrameWriter() {
    }

    static FrameLayout layout(SerializationResult result) {
        List<ByteBuffer> oob = result.outOfBand();
        long[] lengths = new long[oob.size()];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = oob.get(i).remaining();
        }
        return FrameLayout.of(result.inBand().remaining(), lengths);
    }

    /** Header and OOB table: everything before the in-band section. */
    static ByteBuffer header(FrameLayout layout) {
        int k = layout.bufferOffsets().length;
        ByteBuffer header = ByteBuffer.allocate((int) layout.inBandOffset()).order(ByteOrder.LITTLE_ENDIAN);
        header.put(MAGIC).put(VERSION).put((byte) 0).putShort((short) 0);
        header.putInt(k).putInt(0);
        header.putLong(layout.inBandLength()).putLong(layout.totalLength());
        for (int i = 0; i < k; i++) {
            header.putLong(layout.bufferOffsets()[i]).putLong(layout.bufferLengths()[i]);
        }
        return header.flip();
    }

    /** The frame's pieces in order: header, in-band, then padding and buffer for each OOB buffer. */
    static List<ByteBuffer> pieces(SerializationResult result, FrameLayout layout) {
        List<ByteBuffer> pieces = new ArrayList<>();
        pieces.add(header(layout));
        pieces.add(result.inBand());
        long end = layout.inBandOffset() + layout.inBandLength();
        List<ByteBuffer> oob = result.outOfBand();
        for (int i = 0; i < oob.size(); i++) {
            int padding = (int) (layout.bufferOffsets()[i] - end);
            if (padding > 0) {
                pieces.add(ZEROS.duplicate().limit(padding));
            }
            pieces.add(oob.get(i));
            end = layout.bufferOffsets()[i] + layout.bufferLengths()[i];
        }
        return pieces;
    }

    static ByteBuffer toFrame(SerializationResult result) {
        FrameLayout layout = layout(result);
        if (layout.totalLength() > Integer.MAX_VALUE - 8) {
            throw new SerializationException("a frame of " + layout.totalLength()
                    + " bytes does not fit in one Java ByteBuffer; use writeTo(channel)");
        }
        ByteBuffer frame = ByteBuffer.allocate((int) layout.totalLength());
        for (ByteBuffer piece : pieces(result, layout)) {
            frame.put(piece);
        }
        return frame.flip();
    }

    static long writeTo(SerializationResult result, WritableByteChannel channel) throws IOException {
        FrameLayout layout = layout(result);
        ByteBuffer[] pieces = pieces(result, layout).toArray(ByteBuffer[]::new);
        if (channel instanceof GatheringByteChannel gathering) {
            long remaining = layout.totalLength();
            int first = 0;
            while (remaining > 0) {
                remaining -= gathering.write(pieces, first, pieces.length - first);
                while (first < pieces.length && !pieces[first].hasRemaining()) {
                    first++;
                }
            }
        } else {
            for (ByteBuffer piece : pieces) {
                while (piece.hasRemaining()) {
                    channel.write(piece);
                }
            }
        }
        return layout.totalLength();
    }
}
