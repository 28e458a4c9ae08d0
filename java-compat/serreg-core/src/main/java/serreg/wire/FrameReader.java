package serreg.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import serreg.FrameFormatException;
import serreg.LimitExceededException;
import serreg.Limits;
import serreg.SignatureException;

/**
 * Reads a contiguous frame (docs/FORMAT.md section 4) and checks every rule of its layout, in the
 * order of section 4.1, before anything in it is decoded.
 *
 * <p>Zero-copy: the in-band section and the OOB buffers of the returned {@link FrameView} are views
 * ({@link ByteBuffer#slice}) of the frame buffer, so a frame in a direct or memory-mapped buffer
 * is never copied. Those views share the frame's memory and its read-only-ness. Except when a key
 * is given and the frame is in a direct or memory-mapped buffer, which another process may change
 * between the check and the decoding: the frame is then copied whole to the heap first, checked
 * there and decoded from there.
 *
 * <p>Every size in the header is a u64 and is compared unsigned, without overflow; a frame that
 * breaks a rule is rejected with a {@link FrameFormatException} (or {@link LimitExceededException},
 * {@link SignatureException}) whose offset is the field at fault.
 */
public final class FrameReader {
    private FrameReader() {
    }

    /**
     * Reads the frame at {@code frame}'s position with the default limits and no key.
     *
     * @param frame the buffer holding the frame from its position
     * @return views of the frame's in-band section and OOB buffers
     */
    public static FrameView read(ByteBuffer frame) {
        return read(frame, Limits.DEFAULT, null);
    }

    /**
     * Reads the frame that starts at {@code frame}'s position. The frame may be followed by other
     * data; {@link #frameLength} tells where it ends.
     *
     * @param frame the buffer holding the frame from its position
     * @param limits the limits the header's sizes are checked against
     * @param key null to read signed and unsigned frames alike (a signed frame's trailer is then
     *     ignored); otherwise the frame must be signed with this key, checked before anything past
     *     the header is read
     * @return views of the frame's in-band section and OOB buffers
     */
    public static FrameView read(ByteBuffer frame, Limits limits, byte[] key) {
        ByteBuffer buf = (key == null ? frame.slice() : FrameSignature.privateCopy(frame.slice(), limits))
                .order(ByteOrder.LITTLE_ENDIAN);
        List<ByteBuffer> oob = new ArrayList<>(0);
        boolean signed = checkParts(buf, 0, limits, key, oob);
        ByteBuffer inBand = buf.slice(FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * oob.size(),
                (int) buf.getLong(16));
        return new FrameView(inBand, oob.isEmpty() ? List.of() : List.copyOf(oob), signed);
    }

    /**
     * Checks the frame at {@code frame}'s position as {@link #read(ByteBuffer, Limits, byte[])}
     * without a key does (a signed frame's trailer is not verified), without making any view of
     * it: what a reader that reads the frame where it lies calls. Once it returns, the header's
     * fields are known good: the in-band section starts {@code HEADER_SIZE + TABLE_ENTRY_SIZE * k}
     * bytes into the frame, and its length and the frame's are the u64s (little-endian) at 16 and 24.
     *
     * @param frame the buffer holding the frame from its position (its byte order does not matter)
     * @param limits the limits the header's sizes are checked against
     * @return {@code k}, the number of OOB buffers the frame's table lists
     */
    public static int check(ByteBuffer frame, Limits limits) {
        checkParts(frame, frame.position(), limits, null, null);
        return le32(frame, frame.position() + 8);
    }

    /** The u32 little-endian at an index of {@code b}, whatever its byte order. */
    private static int le32(ByteBuffer b, int i) {
        int v = b.getInt(i);
        return b.order() == ByteOrder.LITTLE_ENDIAN ? v : Integer.reverseBytes(v);
    }

    /** The u64 little-endian at an index of {@code b}, whatever its byte order. */
    static long le64(ByteBuffer b, int i) {
        long v = b.getLong(i);
        return b.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }

    /**
     * Every rule of section 4.1 over the frame at {@code base} in {@code buf} (errors at offsets
     * from {@code base}); the OOB buffers' views go in {@code oob} when it is not null. Returns
     * whether the frame is signed.
     */
    private static boolean checkParts(ByteBuffer buf, int base, Limits limits, byte[] key, List<ByteBuffer> oob) {
        int available = buf.limit() - base;
        if (!(available >= FrameLayout.HEADER_SIZE)) {
            throw invalid("a frame needs a 32-byte header but only "
                    + available + " bytes are there", available);
        }
        for (int i = 0; i < FrameWriter.MAGIC.length; i++) {
            if (!(buf.get(base + i) == FrameWriter.MAGIC[i])) {
                throw invalid("not a serreg frame: it does not start with \"SREG\"", i);
            }
        }
        if (!(buf.get(base + 4) == FrameWriter.VERSION)) {
            throw invalid("unsupported format version " + (buf.get(base + 4) & 0xff)
                    + " (this reader knows version 1)", 4);
        }
        if (!(buf.getShort(base + 6) == 0)) {
            throw invalid("reserved bytes 6..7 are not zero", 6);
        }
        if (!(buf.getInt(base + 12) == 0)) {
            throw invalid("reserved bytes 12..15 are not zero", 12);
        }
        long totalLength = le64(buf, base + 24);
        if (Long.compareUnsigned(totalLength, limits.maxFrameSize()) > 0) {
            throw new LimitExceededException("the frame is " + Long.toUnsignedString(totalLength)
                    + " bytes, more than maxFrameSize=" + limits.maxFrameSize()
                    + "; raise it with Limits.withMaxFrameSize(...) if such frames are expected", 24);
        }
        if (!(Long.compareUnsigned(totalLength, available) <= 0)) {
            throw invalid("the header says the frame is "
                    + Long.toUnsignedString(totalLength) + " bytes, but only " + available + " bytes were given", 24);
        }
        if (!(totalLength >= FrameLayout.HEADER_SIZE)) {
            throw invalid("the header says the frame is " + totalLength
                    + " bytes, shorter than the 32-byte header itself", 24);
        }
        int total = (int) totalLength;
        int flags = buf.get(base + 5) & 0xff;
        if ((flags & FrameSignature.FLAG_SIGNED_V1) != 0) {
            throw FrameSignature.retiredV1();
        }
        if (!((flags & ~FrameSignature.FLAG_SIGNED) == 0)) {
            throw invalid("unknown frame flags 0x"
                    + Integer.toHexString(flags & ~FrameSignature.FLAG_SIGNED) + "; this reader knows only 0x02 (signed)", 5);
        }
        boolean signed = (flags & FrameSignature.FLAG_SIGNED) != 0;
        if (key != null && !signed) {
            throw FrameSignature.notSigned();
        }
        int end = total;
        if (signed) {
            end = total - FrameSignature.SIZE;
            if (!(end >= FrameLayout.HEADER_SIZE)) {
                throw invalid("a signed frame ends with a 32-byte signature after its header,"
                        + " but the header says the frame is only " + total + " bytes", 24);
            }
            if (key != null) { // only on read's path, where the frame starts at 0
                FrameSignature.verify(key, buf, end);
            }
        }

        long k = Integer.toUnsignedLong(le32(buf, base + 8));
        if (k > limits.maxBuffers()) {
            throw new LimitExceededException("the frame declares " + k + " out-of-band buffers, more than maxBuffers="
                    + limits.maxBuffers() + "; raise it with Limits.withMaxBuffers(...) if such frames are expected", 8);
        }
        long tableEnd = FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * k;
        if (!(tableEnd <= end)) {
            throw invalid("the frame declares " + k + " out-of-band buffers, but their table does not fit in its "
                    + end + " bytes", 8);
        }
        long inBandLength = le64(buf, base + 16);
        if (!(Long.compareUnsigned(inBandLength, ClassIdHash.SIZE) >= 0
                        && Long.compareUnsigned(inBandLength, end - tableEnd) <= 0)) {
            throw invalid("in-band section length " + Long.toUnsignedString(inBandLength) + " is invalid: it is at least 8 and"
                        + " must fit between the table's end at " + tableEnd + " and the end of the frame's parts at " + end, 16);
        }

        long expected = tableEnd + inBandLength;
        for (int i = 0; i < k; i++) {
            int entry = FrameLayout.HEADER_SIZE + FrameLayout.TABLE_ENTRY_SIZE * i;
            long offset = le64(buf, base + entry);
            long length = le64(buf, base + entry + 8);
            long aligned = FrameLayout.align64(expected);
            if (!(offset == aligned)) {
                throw invalid("out-of-band buffer " + i + " starts at " + Long.toUnsignedString(offset)
                        + ", expected the 64-byte-aligned offset " + aligned
                        + " (buffers follow each other in order, without overlap)", entry);
            }
            if (!(aligned <= end && Long.compareUnsigned(length, end - aligned) <= 0)) {
                throw invalid("out-of-band buffer " + i
                        + " (" + Long.toUnsignedString(length) + " bytes at offset " + offset
                        + ") runs past the end of the frame's parts at " + end, entry + 8);
            }
            for (int p = (int) expected; p < aligned; p++) {
                if (!(buf.get(base + p) == 0)) {
                    throw invalid("padding before out-of-band buffer " + i + " is not zero", p);
                }
            }
            if (oob != null) {
                oob.add(buf.slice(base + (int) offset, (int) length));
            }
            expected = offset + length;
        }
        if (!(expected == end)) {
            throw invalid("the frame has " + (end - expected) + " bytes after its last part", expected);
        }
        return signed;
    }

    /**
     * The total length recorded in the header of the frame at {@code frame}'s position (unchecked).
     *
     * @param frame the buffer holding the frame from its position
     * @return the header's total length field
     */
    public static long frameLength(ByteBuffer frame) {
        if (!(frame.remaining() >= FrameLayout.HEADER_SIZE)) {
            throw invalid("a frame needs a 32-byte header", frame.remaining());
        }
        return frame.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(frame.position() + 24);
    }

    /** The error for a rule the frame breaks (the message is built only then, not for every frame read). */
    private static FrameFormatException invalid(String what, long offset) {
        return new FrameFormatException("invalid frame: " + what, offset);
    }
}
