package serreg;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The reads of str payloads as text for {@link ScalarReader} and {@link InBandReader}: strict
 * UTF-8 of any str where its bytes lie (copied to a scratch array first when there is no backing
 * array), and the short ASCII strs (fixstr, bytes below 0x80) the hot paths take without a call
 * per str: one str, a run into an array or a list, a view of a run. Each returns null or stops
 * where its way does not apply and reads nothing more, so the caller reads the value with every
 * check and error. Package-private (its public methods are {@link InBandReader}'s); not
 * thread-safe.
 */
abstract class TextReader extends NumberReader {
    /** A scratch array longer than this is not kept past {@link #forget}. */
    private static final int KEPT_SCRATCH = 4096;
    /** Copy of a str's bytes when there is no backing array. */
    private byte[] scratch;

    TextReader(ByteBuffer inBand, int skip) {
        super(inBand, skip);
    }

    TextReader(ByteBuffer inBand, int from, int length) {
        super(inBand, from, length);
    }

    /** Lets go of the bytes, and of a scratch array too large to keep. */
    @Override
    final void forget() {
        super.forget();
        if (scratch != null && scratch.length > KEPT_SCRATCH) {
            scratch = null;
        }
    }

    /**
     * The strict UTF-8 text of {@code n} bytes at an index (ASCII copied straight from the
     * in-band bytes), or null if they are not well-formed.
     */
    final String utf8(int index, int n) {
        byte[] a = array();
        if (a != null) {
            return Utf8.decode(a, index, n);
        }
        if (scratch == null || scratch.length < n) {
            scratch = new byte[Math.max(n, 64)];
        }
        source().get(sourceIndex(index), scratch, 0, n);
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
        byte[] a = array();
        if (a == null) {
            return 0;
        }
        int p = pos;
        int end = end();
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
        byte[] a = array();
        if (a == null) {
            return 0;
        }
        long run = asciiRun(a, pos, end(), into, max);
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
        byte[] a = array();
        if (a == null) {
            return null;
        }
        int start = pos;
        int p = start;
        int end = end();
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
        byte[] a = array();
        int p = pos;
        int end = end();
        if (a == null || p >= end) {
            return null;
        }
        int b = a[p];
        int n = b & 0x1f;
        if ((b & 0xe0) != 0xa0 || n >= end - p || !Utf8.isAscii(a, p + 1, p + 1 + n)) {
            return null;
        }
        pos = p + 1 + n;
        return Utf8.shortAscii(a, p + 1, n);
    }

    /** The ASCII text of {@code n} bytes at an index, from {@code cache} when it has it; null if not ASCII or no array. */
    final String asciiKey(int index, int n, KeyCache cache) {
        byte[] a = array();
        return a != null ? cache.ascii(a, index, n) : null;
    }
}
