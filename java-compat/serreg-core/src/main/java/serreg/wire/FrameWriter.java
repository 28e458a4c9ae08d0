package serreg.wire;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import serreg.SerializationException;

/**
 * Writes an in-band section and its OOB buffers as a contiguous frame (docs/FORMAT.md section 4),
 * signed (section 4.2) when a key is given. The buffers are handed on by reference, never copied
 * except into the one buffer of {@link #toFrame}.
 */
public final class FrameWriter {
    static final byte[] MAGIC = {'S', 'R', 'E', 'G'};
    static final byte VERSION = 1;
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(FrameLayout.ALIGNMENT).asReadOnlyBuffer();

    private FrameWriter() {
    }

    private static FrameLayout layout(ByteBuffer inBand, List<ByteBuffer> oob) {
        long[] lengths = new long[oob.size()];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = oob.get(i).remaining();
        }
        return FrameLayout.of(inBand.remaining(), lengths);
    }

    private static long frameLength(FrameLayout layout, boolean signed) {
        return signed ? layout.totalLength() + FrameSignature.SIZE : layout.totalLength();
    }

    /**
     * Total length of the frame holding this in-band section and these buffers, the 32-byte trailer
     * of a signed frame included.
     *
     * @param inBand the in-band section (from its position to its limit)
     * @param oob the OOB buffers in order
     * @param signed whether the frame carries a signature trailer
     * @return the frame's length in bytes
     */
    public static long frameLength(ByteBuffer inBand, List<ByteBuffer> oob, boolean signed) {
        return frameLength(layout(inBand, oob), signed);
    }

    /** Header and OOB table: everything before the in-band section. */
    private static ByteBuffer header(FrameLayout layout, boolean signed) {
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
    private static List<ByteBuffer> pieces(ByteBuffer inBand, List<ByteBuffer> oob, byte[] key, FrameLayout layout) {
        List<ByteBuffer> pieces = new ArrayList<>();
        pieces.add(header(layout, key != null));
        pieces.add(inBand.duplicate());
        long end = layout.inBandOffset() + layout.inBandLength();
        for (int i = 0; i < oob.size(); i++) {
            int padding = (int) (layout.bufferOffsets()[i] - end);
            if (padding > 0) {
                pieces.add(ZEROS.duplicate().limit(padding));
            }
            pieces.add(oob.get(i).duplicate());
            end = layout.bufferOffsets()[i] + layout.bufferLengths()[i];
        }
        if (key != null) {
            pieces.add(ByteBuffer.wrap(FrameSignature.sign(key, pieces)));
        }
        return pieces;
    }

    /**
     * The contiguous frame as one heap buffer (copies every buffer once).
     *
     * @param inBand the in-band section
     * @param oob the OOB buffers in order
     * @param key the signing key (already checked with {@link FrameSignature#checkKey}), or null
     *     for an unsigned frame
     * @return a buffer holding exactly the frame, position 0
     * @throws SerializationException if the frame is too large for one ByteBuffer
     */
    public static ByteBuffer toFrame(ByteBuffer inBand, List<ByteBuffer> oob, byte[] key) {
        return toFrame(EMPTY, inBand, oob, key);
    }

    private static final byte[] EMPTY = {};

    /**
     * As {@link #toFrame(ByteBuffer, List, byte[])}, for an in-band section given in two parts
     * ({@code head}, then {@code rest}), so that a caller that puts something in front of a
     * section need not copy the two together first.
     *
     * @param head the first bytes of the in-band section
     * @param rest the rest of the in-band section
     * @param oob the OOB buffers in order
     * @param key the signing key (already checked with {@link FrameSignature#checkKey}), or null
     * @return a buffer holding exactly the frame, position 0
     * @throws SerializationException if the frame is too large for one ByteBuffer
     */
    public static ByteBuffer toFrame(byte[] head, ByteBuffer rest, List<ByteBuffer> oob, byte[] key) {
        ByteBuffer inBand = rest;
        int k = oob.size();
        int inBandLength = head.length + inBand.remaining();
        long inBandOffset = FrameLayout.HEADER_SIZE + (long) FrameLayout.TABLE_ENTRY_SIZE * k;
        long end = inBandOffset + inBandLength;
        for (int i = 0; i < k; i++) {
            end = FrameLayout.align64(end) + oob.get(i).remaining();
        }
        long total = key != null ? end + FrameSignature.SIZE : end;
        if (total > Integer.MAX_VALUE - 8 || inBandLength < 0) {
            throw new SerializationException("a frame of " + total
                    + " bytes does not fit in one Java ByteBuffer; use writeTo(channel)");
        }
        // One array, written in place: header, table, in-band, each buffer at its aligned offset
        // (a new array is zero, so the padding is already there), then the trailer of a signed frame.
        // The in-band's bulk is copied first, right after the array is made: C2 then zeroes only
        // the bytes outside the copy (an array made and at once filled by one copy is not cleared
        // first), where any write in between made it clear the whole array (measured: a memset of
        // the frame took about a tenth of encoding 1,000 small nested values).
        int restAt = (int) inBandOffset + head.length;
        int restLength = inBandLength - head.length;
        byte[] frame;
        if (inBand.hasArray()) {
            byte[] source = inBand.array();
            int from = inBand.arrayOffset() + inBand.position();
            frame = new byte[(int) total];
            System.arraycopy(source, from, frame, restAt, restLength);
        } else {
            frame = new byte[(int) total];
            inBand.duplicate().get(frame, restAt, restLength);
        }
        System.arraycopy(MAGIC, 0, frame, 0, MAGIC.length);
        frame[4] = VERSION;
        frame[5] = (byte) (key != null ? FrameSignature.FLAG_SIGNED : 0);
        INT_LE.set(frame, 8, k);
        LONG_LE.set(frame, 16, (long) inBandLength);
        LONG_LE.set(frame, 24, total);
        System.arraycopy(head, 0, frame, (int) inBandOffset, head.length);
        long at = inBandOffset + inBandLength;
        for (int i = 0; i < k; i++) {
            ByteBuffer b = oob.get(i);
            int length = b.remaining();
            at = FrameLayout.align64(at);
            int entry = FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * i;
            LONG_LE.set(frame, entry, at);
            LONG_LE.set(frame, entry + 8, (long) length);
            b.duplicate().get(frame, (int) at, length);
            at += length;
        }
        if (key != null) {
            byte[] trailer = FrameSignature.sign(key, List.of(ByteBuffer.wrap(frame, 0, (int) end)));
            System.arraycopy(trailer, 0, frame, (int) end, trailer.length);
        }
        return ByteBuffer.wrap(frame);
    }

    /** Heap pieces from this size on are written through {@link #CHUNK} rather than whole. */
    private static final int CHUNK_SIZE = 1 << 20;

    /**
     * One direct buffer per thread for writing large heap buffers: the JDK copies a heap buffer
     * handed to a channel into a temporary direct buffer of its full size (100 MB for a 100 MB
     * array, cold in every cache); a chunk at a time through this one is about twice as fast.
     */
    private static final ThreadLocal<ByteBuffer> CHUNK = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(CHUNK_SIZE));

    /**
     * Writes the contiguous frame to {@code channel}, handing the OOB buffers to it without
     * copying them first (a gathering write where the channel supports it; a large heap buffer,
     * which the JDK would copy whole, goes through a reused direct chunk).
     *
     * @param inBand the in-band section
     * @param oob the OOB buffers in order
     * @param key the signing key (already checked), or null for an unsigned frame
     * @param channel where the frame goes
     * @return the number of bytes written, the frame's length
     * @throws IOException if the channel fails
     */
    public static long writeTo(ByteBuffer inBand, List<ByteBuffer> oob, byte[] key, WritableByteChannel channel)
            throws IOException {
        FrameLayout layout = layout(inBand, oob);
        ByteBuffer[] pieces = pieces(inBand, oob, key, layout).toArray(ByteBuffer[]::new);
        long total = frameLength(layout, key != null);
        int from = 0;
        for (int i = 0; i <= pieces.length; i++) {
            if (i == pieces.length || !pieces[i].isDirect() && pieces[i].remaining() >= CHUNK_SIZE) {
                writeAll(pieces, from, i, channel);
                if (i < pieces.length) {
                    writeChunked(pieces[i], channel);
                }
                from = i + 1;
            }
        }
        return total;
    }

    private static void writeAll(ByteBuffer[] pieces, int from, int to, WritableByteChannel channel) throws IOException {
        if (channel instanceof GatheringByteChannel gathering) {
            int first = from;
            while (first < to) {
                gathering.write(pieces, first, to - first);
                while (first < to && !pieces[first].hasRemaining()) {
                    first++;
                }
            }
        } else {
            for (int i = from; i < to; i++) {
                while (pieces[i].hasRemaining()) {
                    channel.write(pieces[i]);
                }
            }
        }
    }

    private static void writeChunked(ByteBuffer heap, WritableByteChannel channel) throws IOException {
        ByteBuffer chunk = CHUNK.get();
        ByteBuffer source = heap.duplicate();
        while (source.hasRemaining()) {
            int n = Math.min(chunk.capacity(), source.remaining());
            chunk.clear();
            chunk.put(source.slice(source.position(), n)).flip();
            source.position(source.position() + n);
            while (chunk.hasRemaining()) {
                channel.write(chunk);
            }
        }
        heap.position(heap.limit());
    }
}
