package serreg;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a {@link SerializationResult} as a contiguous frame (docs/FORMAT.md section 4), signed
 * (section 4.2) when the result carries a key.
 */
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

    /** Total frame length: the layout's end, plus the trailer of a signed frame. */
    static long frameLength(FrameLayout layout, boolean signed) {
        return signed ? layout.totalLength() + FrameSignature.SIZE : layout.totalLength();
    }

    /** Header and OOB table: everything before the in-band section. */
    static ByteBuffer header(FrameLayout layout, boolean signed) {
        int k = layout.bufferOffsets().length;
        ByteBuffer header = ByteBuffer.allocate((int) layout.inBandOffset()).order(ByteOrder.LITTLE_ENDIAN);
        header.put(MAGIC).put(VERSION).put((byte) (signed ? FrameSignature.FLAG_SIGNED : 0)).putShort((short) 0);
        header.putInt(k).putInt(0);
        header.putLong(layout.inBandLength()).putLong(frameLength(layout, signed));
        for (int i = 0; i < k; i++) {
            header.putLong(layout.bufferOffsets()[i]).putLong(layout.bufferLengths()[i]);
        }
        return header.flip();
    }

    /**
     * The frame's pieces in order: header, in-band, then padding and buffer for each OOB buffer,
     * then, for a signed result, the HMAC-SHA256 trailer over all the pieces before it.
     */
    static List<ByteBuffer> pieces(SerializationResult result, FrameLayout layout) {
        byte[] key = result.signingKey();
        List<ByteBuffer> pieces = new ArrayList<>();
        pieces.add(header(layout, key != null));
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
        if (key != null) {
            pieces.add(ByteBuffer.wrap(FrameSignature.sign(key, pieces)));
        }
        return pieces;
    }

    static ByteBuffer toFrame(SerializationResult result) {
        FrameLayout layout = layout(result);
        long total = frameLength(layout, result.isSigned());
        if (total > Integer.MAX_VALUE - 8) {
            throw new SerializationException("a frame of " + total
                    + " bytes does not fit in one Java ByteBuffer; use writeTo(channel)");
        }
        ByteBuffer frame = ByteBuffer.allocate((int) total);
        for (ByteBuffer piece : pieces(result, layout)) {
            frame.put(piece);
        }
        return frame.flip();
    }

    static long writeTo(SerializationResult result, WritableByteChannel channel) throws IOException {
        FrameLayout layout = layout(result);
        ByteBuffer[] pieces = pieces(result, layout).toArray(ByteBuffer[]::new);
        long total = frameLength(layout, result.isSigned());
        if (channel instanceof GatheringByteChannel gathering) {
            long remaining = total;
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
        return total;
    }
}
