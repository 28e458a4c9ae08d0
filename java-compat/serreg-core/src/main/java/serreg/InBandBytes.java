package serreg;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The bytes of one in-band document and the position in them, under {@link NumberReader},
 * {@link ScalarReader} and {@link InBandReader}. It reads the given buffer where it lies: its backing array (from the
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
    /** A scratch array longer than this is not kept past {@link #forget}. */
    private static final int KEPT_SCRATCH = 4096;
    /** Copy of a str's bytes when there is no backing array. */
    private byte[] scratch;
    /** Index of the next unread byte (moved by the reads of {@link NumberReader} and {@link ScalarReader}). */
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
    final void forget() {
        source = null;
        array = null;
        if (scratch != null && scratch.length > KEPT_SCRATCH) {
            scratch = null;
        }
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

    /**
     * The strict UTF-8 text of {@code n} bytes at an index (ASCII copied straight from the
     * in-band bytes), or null if they are not well-formed.
     */
    final String utf8(int index, int n) {
        if (array != null) {
            return Utf8.decode(array, index, n);
        }
        if (scratch == null || scratch.length < n) {
            scratch = new byte[Math.max(n, 64)];
        }
        source.get(index, scratch, 0, n);
        return Utf8.decode(scratch, 0, n);
    }

    /**
     * Reads the run of short ASCII strs (fixstr, at most 31 bytes) at the position into
     * {@code out[from]}, {@code out[from + 1]} ..., at most {@code max} of them; stops before any
     * other value (a longer or non-ASCII str, a str cut short by the end of the in-band, anything
     * else) and returns how many it read. One loop with the position in a local, without a call
     * per str (each str is checked as {@link #utf8} checks it): {@link ScalarReader#readStrings}
     * (a struct list's str column) starts with it.
     */
    final int readAsciiRun(Object[] out, int from, int max) {
        byte[] a = array;
        if (a == null) {
            return 0;
        }
        int p = pos;
        int end = limit;
        int read = 0;
        while (read < max && p < end) {
            int b = a[p];
            int n = b & 0x1f;
            if ((b & 0xe0) != 0xa0 || n >= end - p || !Utf8.isAscii(a, p + 1, p + 1 + n)) {
                break;
            }
            out[from + read] = Utf8.latin1(a, p + 1, n);
            p += 1 + n;
            read++;
        }
        pos = p;
        return read;
    }

    /**
     * {@link #readAsciiRun(Object[], int, int)} into a list ({@link InBandReader#readAsciiStrings}:
     * a list's items), its own loop (a shared step returning the string or null measured 10 to
     * 20 % slower on a list of 10,000 short strs). A str of up to 7 bytes with 8 bytes of the
     * array from its header on is read as one 8-byte word (header and bytes), checked in it and
     * made into its String from it; the others as the column's loop reads them. The loop's shape
     * matters to the JIT: the same checks with the byte-wise ones first and the word second ran
     * at 42 us for 10,000 strs in some JVMs and 65 in others.
     */
    final int readAsciiRun(List<Object> into, int max) {
        byte[] a = array;
        if (a == null) {
            return 0;
        }
        long run = asciiRun(a, pos, limit, into, max);
        pos = (int) run;
        return (int) (run >>> 32);
    }

    /**
     * The loop of {@link #readAsciiRun(List, int)} from index {@code p} to at most {@code end}:
     * how many strs it read (high 32 bits) and the index after the last (low 32 bits).
     */
    private static long asciiRun(byte[] a, int p, int end, List<Object> into, int max) {
        int words = Math.min(end, a.length - 8); // an 8-byte read at an index below this stays in the array
        int read = 0;
        while (read < max) {
            if (p < words) {
                // One 8-byte read: the header and up to 7 bytes, checked in the word.
                long w = Bytes.getLongLE(a, p);
                int b = (int) w & 0xff;
                int n = b & 0x1f;
                if ((b & 0xe0) == 0xa0 && n < 8 && n < end - p && (w & ((1L << (n << 3)) - 1) << 8 & 0x8080808080808080L) == 0) {
                    // The String by concatenation of the chars taken from the word: the JDK fills a new
                    // array of the exact size from registers and makes the String on it, where every
                    // String constructor copies a range through the JVM's copy stub, a call costing
                    // more than the 1 to 5 bytes it copies. Written out here, not in a method of its
                    // own, which the JIT may compile alone first and then find too large to inline.
                    String s = switch (n) {
                        case 1 -> "" + (char) (w >>> 8 & 0x7f);
                        case 2 -> "" + (char) (w >>> 8 & 0x7f) + (char) (w >>> 16 & 0x7f);
                        case 3 -> "" + (char) (w >>> 8 & 0x7f) + (char) (w >>> 16 & 0x7f) + (char) (w >>> 24 & 0x7f);
                        case 4 -> "" + (char) (w >>> 8 & 0x7f) + (char) (w >>> 16 & 0x7f) + (char) (w >>> 24 & 0x7f)
                                + (char) (w >>> 32 & 0x7f);
                        case 5 -> "" + (char) (w >>> 8 & 0x7f) + (char) (w >>> 16 & 0x7f) + (char) (w >>> 24 & 0x7f)
                                + (char) (w >>> 32 & 0x7f) + (char) (w >>> 40 & 0x7f);
                        default -> Utf8.latin1(a, p + 1, n);
                    };
                    into.add(s);
                    p += 1 + n;
                    read++;
                    continue;
                }
            }
            // A longer str, one near the end of the array, or anything else: the byte-wise checks.
            if (p >= end) {
                break;
            }
            int b = a[p];
            int n = b & 0x1f;
            if ((b & 0xe0) != 0xa0 || n >= end - p || !Utf8.isAscii(a, p + 1, p + 1 + n)) {
                break;
            }
            into.add(Utf8.latin1(a, p + 1, n));
            p += 1 + n;
            read++;
        }
        return (long) read << 32 | p;
    }

    /**
     * A view of the bytes of the {@code count} values at the position when each is a short ASCII
     * str (a fixstr whose bytes are all below 0x80) and all of them lie in an array; the position
     * moves past them. Otherwise null, and nothing is read.
     */
    final ByteBuffer asciiRun(int count) {
        byte[] a = array;
        if (a == null) {
            return null;
        }
        int start = pos;
        int p = start;
        int end = limit;
        for (int i = 0; i < count; i++) {
            if (p >= end) {
                return null;
            }
            int b = a[p];
            int n = b & 0x1f;
            if ((b & 0xe0) != 0xa0 || n >= end - p || !Utf8.isAscii(a, p + 1, p + 1 + n)) {
                return null;
            }
            p += 1 + n;
        }
        pos = p;
        return view(start, p - start);
    }

    /**
     * The text of the value at the position when it is a short ASCII str (a fixstr whose bytes
     * are all below 0x80, within the bytes this reader may read, in an array), the position moved
     * past it; otherwise null, and nothing is read (the value is then read with every check and
     * error by {@link ScalarReader#readString} or {@link InBandReader#readValue}).
     */
    final String asciiFixStr() {
        byte[] a = array;
        int p = pos;
        if (a == null || p >= limit) {
            return null;
        }
        int b = a[p];
        int n = b & 0x1f;
        if ((b & 0xe0) != 0xa0 || n >= limit - p || !Utf8.isAscii(a, p + 1, p + 1 + n)) {
            return null;
        }
        pos = p + 1 + n;
        return Utf8.shortAscii(a, p + 1, n);
    }

    /** The ASCII text of {@code n} bytes at an index, from {@code cache} when it has it; null if not ASCII or no array. */
    final String asciiKey(int index, int n, KeyCache cache) {
        return array != null ? cache.ascii(array, index, n) : null;
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
