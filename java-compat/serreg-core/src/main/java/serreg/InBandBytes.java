package serreg;

import java.nio.ByteBuffer;

/**
 * The bytes of one in-band document and the position in them, under {@link NumberReader},
 * {@link TextReader}, {@link ScalarReader} and {@link InBandReader}. It reads the given buffer where it lies: its backing array (from the
 * buffer's position: no copy, no view), or the buffer itself when it is direct or read-only.
 * Each multi-byte read is one access; the checks that the bytes are there are here too, and
 * errors carry the byte offset from the start of the document. Package-private (its public
 * methods are {@link InBandReader}'s); not thread-safe.
 */
abstract class InBandBytes {
    /** The in-band bytes: the buffer given (array mode) or a big-endian view of it (buffer mode). */
    private ByteBuffer source;
    /** The source's backing array, or null to read through {@link #source} (direct or read-only). */
    private byte[] array;
    /** Index of offset 0 (in the array, or in the source without one). */
    private int base;
    /** What to subtract from an index to get the source's own index (its array offset in array mode). */
    private int sourceShift;
    /** Index of the next unread byte (moved by the reads of the subclasses). */
    int pos;
    /** Index just past the bytes this reader may read (the end of a nested value while it is read). */
    private int limit;

    /** A reader of {@code inBand} from its position + {@code skip} to its limit. */
    InBandBytes(ByteBuffer inBand, int skip) {
        this(inBand, inBand.position() + skip, inBand.limit() - inBand.position() - skip);
    }

    /** A reader of the {@code length} bytes at index {@code from} of {@code inBand} (its position and limit aside). */
    InBandBytes(ByteBuffer inBand, int from, int length) {
        point(inBand, from, length);
    }

    /** Points this reader at the {@code length} bytes at index {@code from} of {@code inBand}, from their start. */
    final void point(ByteBuffer inBand, int from, int length) {
        if (inBand.hasArray()) {
            this.source = inBand;
            this.array = inBand.array();
            this.sourceShift = inBand.arrayOffset();
            this.base = sourceShift + from;
        } else {
            this.source = inBand.slice(from, length);
            this.array = null;
            this.sourceShift = 0;
            this.base = 0;
        }
        this.pos = base;
        this.limit = base + length;
    }

    /** Lets go of the bytes (a reader kept for the thread's next call must not hold a frame's memory). */
    void forget() {
        source = null;
        array = null;
        pos = 0;
        limit = 0;
    }

    // ---- positions and bytes ----

    /** Bytes of this in-band not read yet. */
    public long remaining() {
        return limit - pos;
    }

    /**
     * Offset of the next unread byte, from the start of the in-band bytes this reader was given
     * (a nested value read in place counts from there too, so the offsets in errors need no
     * shifting on their way out).
     */
    public long offset() {
        return pos - base;
    }

    /** The index of the next unread byte (for {@link #offsetOf}, {@link #seek}, {@link #view}). */
    final int index() {
        return pos;
    }

    /** The index just past the bytes this reader may read now. */
    final int end() {
        return limit;
    }

    /** The offset of an index. */
    final long offsetOf(int index) {
        return index - base;
    }

    final void seek(int index) {
        pos = index;
    }

    /** Bounds reading to {@code [start, end)} (a nested value's payload); returns the bound to restore. */
    final int bound(int start, int end) {
        int saved = limit;
        limit = end;
        pos = start;
        return saved;
    }

    /** Restores the bound {@link #bound} returned and moves past the nested value. */
    final void unbound(int savedLimit, int end) {
        limit = savedLimit;
        pos = end;
    }

    /**
     * The buffer this reader reads (the one it was given, or a view of it when that is direct or
     * read-only), for the decoder to read a section in it without a view of its own; see
     * {@link #sourceIndex}.
     */
    final ByteBuffer source() {
        return source;
    }

    /** The array this reader reads (indexes are its own), or null when it reads {@link #source} (direct or read-only). */
    final byte[] array() {
        return array;
    }

    /** The index in {@link #source} of an index of this reader. */
    final int sourceIndex(int index) {
        return index - sourceShift;
    }

    /** Whether the {@code expected.length} bytes at an index, within the bytes this reader may read, are {@code expected}. */
    final boolean sameBytes(int index, byte[] expected) {
        int n = expected.length;
        if (limit - index < n) {
            return false;
        }
        if (array != null) {
            return java.util.Arrays.equals(array, index, index + n, expected, 0, n);
        }
        return source.slice(index - sourceShift, n).equals(ByteBuffer.wrap(expected));
    }

    /** A copy of the {@code n} bytes at an index. */
    final byte[] copy(int index, int n) {
        byte[] out = new byte[n];
        if (array != null) {
            System.arraycopy(array, index, out, 0, n);
        } else {
            source.get(index - sourceShift, out);
        }
        return out;
    }

    /** A view of {@code n} bytes at an index, sharing the in-band's memory. */
    final ByteBuffer view(int index, int n) {
        return source.slice(index - sourceShift, n);
    }

    /** The u64 little-endian at an index (a ClassIDHash). */
    final long hashAt(int index) {
        return array != null ? Bytes.getLongLE(array, index) : Long.reverseBytes(source.getLong(index));
    }

    final int u8(int i) {
        return array != null ? array[i] & 0xff : source.get(i) & 0xff;
    }

    final int u16(int i) {
        return array != null ? Bytes.getShortBE(array, i) & 0xffff : source.getShort(i) & 0xffff;
    }

    final long u32(int i) {
        return (array != null ? Bytes.getIntBE(array, i) : source.getInt(i)) & 0xffffffffL;
    }

    final long i64(int i) {
        return array != null ? Bytes.getLongBE(array, i) : source.getLong(i);
    }

    /** The first byte of the next value, not consumed. */
    final int peek() {
        if (pos >= limit) {
            throw error("the in-band ends before the value is complete", offset());
        }
        return u8(pos);
    }

    /** Checks that the {@code n} bytes after the first byte of the value at the position are there. */
    final void needHeader(int n, String what) {
        if (n > limit - pos - 1) {
            throw error("malformed msgpack " + what + ": the in-band ends inside its header", offset());
        }
    }

    /** Length of a str, bin or ext payload (a u32 may exceed an int), checked against the bytes left. */
    final int payloadLength(long length, long at, String what) {
        if (length > limit - pos) {
            throw error(what + " of " + length + " bytes runs past the end of the in-band", at);
        }
        return (int) length;
    }

    /** The error for a value of the wrong type (or the never-used byte 0xc1) where {@code what} was expected. */
    final DeserializationException unexpected(int b, String what, long at) {
        return b == 0xc1 ? error("byte 0xc1 is not a msgpack value (msgpack never uses it)", at)
                : error("expected " + what + ", found msgpack " + InBandLayout.format(b), at);
    }

    public DeserializationException error(String what, long offset) {
        return new DeserializationException(what, offset);
    }
}
