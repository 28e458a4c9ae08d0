package serreg;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.msgpack.core.MessageFormat;

/**
 * The reads of scalar values and headers for {@link InBandReader} (which adds arrays, maps and
 * nested values): nil, bool, int, float, str (strict UTF-8), bin, and the array and map headers,
 * whose counts are checked against the bytes left. Package-private (its public methods are
 * {@link InBandReader}'s); not thread-safe.
 */
abstract class ScalarReader extends InBandBytes {
    ScalarReader(ByteBuffer inBand, int skip) {
        super(inBand, skip);
    }

    ScalarReader(ByteBuffer inBand, int from, int length) {
        super(inBand, from, length);
    }

    /** Reads an ext value (nested value or struct), whose first byte is at the position. */
    abstract Object readExt();

    // ---- scalars ----

    /** Any value but an array or map, whose first byte is {@code b}. */
    final Object readScalar(int b) {
        if (b <= 0x7f) {
            pos++;
            return (long) b;
        }
        if (b >= 0xe0) {
            pos++;
            return (long) (byte) b;
        }
        return b >= 0xa0 && b <= 0xbf ? readFixStr(b) : readOther(b);
    }

    /** A fixstr (first byte {@code b}): its bytes decoded where they lie. */
    private String readFixStr(int b) {
        int n = b & 0x1f;
        String s = n < remaining() ? utf8(pos + 1, n) : null;
        if (s == null) {
            return readString(); // the error
        }
        pos += 1 + n;
        return s;
    }

    /** Any value but an array or map, a fixint or a fixstr. Apart, so that the common cases inline where values are read. */
    private Object readOther(int b) {
        if (InBandLayout.isStr(b)) {
            return readString();
        }
        switch (b) {
            case 0xc0:
                pos++;
                return null;
            case 0xc2:
                pos++;
                return Boolean.FALSE;
            case 0xc3:
                pos++;
                return Boolean.TRUE;
            case 0xcb:
            case 0xca:
                return readDouble();
            case 0xc4:
            case 0xc5:
            case 0xc6:
                return readBinary();
            case 0xcc:
            case 0xcd:
            case 0xce:
            case 0xd0:
            case 0xd1:
            case 0xd2:
            case 0xd3:
                return readSmallInteger(b, offset());
            case 0xcf:
                return readInteger();
            case 0xc1:
                throw error("byte 0xc1 is not a msgpack value (msgpack never uses it)", offset());
            default:
                if (InBandLayout.isExt(b)) {
                    return readExt();
                }
                throw unexpected(b, "a value other than an array or map", offset()); // callers read those first
        }
    }

    /**
     * A str of at most 31 bytes (a fixstr, first byte {@code b}) that may come from {@code cache}
     * when it is ASCII: map keys repeat from record to record.
     */
    final String readShortString(int b, KeyCache cache) {
        int n = b & 0x1f;
        if (n >= remaining()) {
            return readString(); // the error
        }
        String s = asciiKey(pos + 1, n, cache);
        if (s == null) {
            return readString();
        }
        pos += 1 + n;
        return s;
    }

    public Object readInteger() {
        long at = offset();
        int b = peek();
        if (b <= 0x7f) {
            pos++;
            return (long) b;
        }
        if (b >= 0xe0) {
            pos++;
            return (long) (byte) b;
        }
        if (b == 0xcf) {
            needHeader(8, "int");
            long bits = i64(pos + 1);
            pos += 9;
            return bits >= 0 ? (Object) bits : new BigInteger(Long.toUnsignedString(bits));
        }
        return readSmallInteger(b, at);
    }

    /** An int other than a fixint and uint64 (0xcc..0xce, 0xd0..0xd3). */
    private long readSmallInteger(int b, long at) {
        long v;
        switch (b) {
            case 0xcc -> {
                needHeader(1, "int");
                v = u8(pos + 1);
                pos += 2;
            }
            case 0xcd -> {
                needHeader(2, "int");
                v = u16(pos + 1);
                pos += 3;
            }
            case 0xce -> {
                needHeader(4, "int");
                v = u32(pos + 1);
                pos += 5;
            }
            case 0xd0 -> {
                needHeader(1, "int");
                v = (byte) u8(pos + 1);
                pos += 2;
            }
            case 0xd1 -> {
                needHeader(2, "int");
                v = (short) u16(pos + 1);
                pos += 3;
            }
            case 0xd2 -> {
                needHeader(4, "int");
                v = (int) u32(pos + 1);
                pos += 5;
            }
            case 0xd3 -> {
                needHeader(8, "int");
                v = i64(pos + 1);
                pos += 9;
            }
            default -> throw unexpected(b, "an int", at);
        }
        return v;
    }

    /** Reads an int that must fit in a long. */
    public long readLong() {
        long at = offset();
        int b = peek();
        if (b <= 0x7f) {
            pos++;
            return b;
        }
        if (b >= 0xe0) {
            pos++;
            return (byte) b;
        }
        if (b == 0xcf) {
            needHeader(8, "int");
            long bits = i64(pos + 1);
            if (bits < 0) {
                throw error("integer " + Long.toUnsignedString(bits) + " does not fit in 64 signed bits", at);
            }
            pos += 9;
            return bits;
        }
        return readSmallInteger(b, at);
    }

    /** Reads an int in [lo, hi]. */
    public long readLong(long lo, long hi, String what) {
        long at = offset();
        long v = readLong();
        if (v < lo || v > hi) {
            throw error(what + " " + v + " is outside [" + lo + ", " + hi + "]", at);
        }
        return v;
    }

    public boolean readBoolean() {
        int b = peek();
        if (b != 0xc2 && b != 0xc3) {
            throw unexpected(b, "a bool", offset());
        }
        pos++;
        return b == 0xc3;
    }

    /** Reads a float 64; a float 32 is an error here (section 3). */
    public double readDouble() {
        int p = pos;
        if (end() - p > 8 && u8(p) == 0xcb) { // the common case, small enough to inline where fields are read
            pos = p + 9;
            return Double.longBitsToDouble(i64(p + 1));
        }
        return readOtherDouble();
    }

    /** {@link #readDouble} of anything but a whole float 64: the error. */
    private double readOtherDouble() {
        long at = offset();
        int b = peek();
        if (b != 0xcb) {
            throw b == 0xca ? error("expected a float 64, found FLOAT32 (float 32 is only valid inside"
                    + " numpy.float32/complex64)", at) : unexpected(b, "a float 64", at);
        }
        needHeader(8, "float");
        double v = Double.longBitsToDouble(i64(pos + 1));
        pos += 9;
        return v;
    }

    /** Reads a float 32 (numpy.float32 and numpy.complex64 only). */
    public float readFloat() {
        long at = offset();
        int b = peek();
        if (b != 0xca) {
            throw unexpected(b, "a float 32", at);
        }
        needHeader(4, "float");
        float v = Float.intBitsToFloat((int) u32(pos + 1));
        pos += 5;
        return v;
    }

    /**
     * Reads a msgpack str as strict UTF-8 (ASCII straight from the in-band bytes). A short ASCII
     * str (the common case: labels, names) is read by a path small enough to inline where a
     * serializer reads its fields; any other str, and every error, by {@link #readOtherString}.
     */
    public String readString() {
        String s = asciiFixStr();
        return s != null ? s : readOtherString();
    }

    /** {@link #readString} of a str that is not a short ASCII fixstr (or of a value that is not a str: the error). */
    private String readOtherString() {
        long at = offset();
        int b = peek();
        int n = payloadLength(readLength(b, 0xa0, 0xbf, 0xd9, "a str"), at, "payload");
        String s = utf8(pos, n);
        pos += n;
        if (s == null) {
            throw new DeserializationException("str is not valid UTF-8", at);
        }
        return s;
    }

    /**
     * Reads consecutive msgpack str values, each as {@link #readString} reads it, into
     * {@code out[from]}, {@code out[from + 1]} ... (at most {@code max}), and stops before the
     * first value that is not a str, leaving it unread: a column of strings in one loop.
     *
     * @return how many str values it read
     */
    public final int readStrings(Object[] out, int from, int max) {
        int read = readAsciiRun(out, from, max);
        while (read < max && remaining() > 0 && InBandLayout.isStr(u8(pos))) {
            out[from + read] = readString(); // longer than 31 bytes, not ASCII, or an error to raise
            read++;
            read += readAsciiRun(out, from + read, max - read);
        }
        return read;
    }

    /** Reads a msgpack bin as a view of the in-band bytes (no copy). */
    public ByteBuffer readBinaryView() {
        long at = offset();
        int b = peek();
        int n = payloadLength(readLength(b, -1, -1, 0xc4, "a bin"), at, "payload");
        ByteBuffer view = view(pos, n);
        pos += n;
        return view;
    }

    /** Reads a msgpack bin into a fresh array. */
    public byte[] readBinary() {
        ByteBuffer view = readBinaryView();
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    /**
     * Reads an array header. The count is checked against the bytes left (an item takes at least
     * one), so a caller may loop over it, but should not pre-size from it: use {@link InBandReader#newList}.
     */
    public int readArrayHeader() {
        long at = offset();
        long n = readCount(peek(), 0x90, 0xdc, "an array");
        if (n > remaining()) {
            throw error("msgpack array declares " + n + " items but only " + remaining()
                    + " bytes follow in the in-band", at);
        }
        return (int) n;
    }

    /** Reads an array header that must announce exactly {@code size} elements. */
    public void readArrayHeader(int size, String what) {
        int p = pos;
        // The common case (a fixarray of the size, its items' bytes there): one byte compared.
        if (size >= 0 && size < 16 && size < end() - p && u8(p) == (0x90 | size)) {
            pos = p + 1;
            return;
        }
        readOtherArrayHeader(size, what);
    }

    /** {@link #readArrayHeader(int, String)} of any other header: a longer one, or the error. */
    private void readOtherArrayHeader(int size, String what) {
        long at = offset();
        int n = readArrayHeader();
        if (n != size) {
            throw error(what + " must be an array of " + size + " elements, found " + n, at);
        }
    }

    /** Reads a map header; the count is checked against the bytes left (a key and a value take at least two). */
    public int readMapHeader() {
        long at = offset();
        long n = readCount(peek(), 0x80, 0xde, "a map");
        if (2 * n > remaining()) {
            throw error("msgpack map declares " + n + " entries but only " + remaining()
                    + " bytes follow in the in-band", at);
        }
        return (int) n;
    }

    /** The length in a str ({@code fixLo..fixHi} fixstr, {@code wide} str 8) or bin ({@code wide} bin 8) header. */
    private long readLength(int b, int fixLo, int fixHi, int wide, String what) {
        if (b >= fixLo && b <= fixHi) {
            pos += 1;
            return b & 0x1f;
        }
        String kind = wide == 0xd9 ? "str" : "bin";
        if (b == wide) {
            needHeader(1, kind);
            pos += 2;
            return u8(pos - 1);
        }
        if (b == wide + 1) {
            needHeader(2, kind);
            pos += 3;
            return u16(pos - 2);
        }
        if (b == wide + 2) {
            needHeader(4, kind);
            pos += 5;
            return u32(pos - 4);
        }
        throw unexpected(b, what, offset());
    }

    /** The count in an array ({@code fix} 0x90, {@code wide} 0xdc) or map (0x80, 0xde) header. */
    private long readCount(int b, int fix, int wide, String what) {
        String kind = fix == 0x90 ? "array" : "map";
        if (b >= fix && b <= fix + 0x0f) {
            pos += 1;
            return b & 0x0f;
        }
        if (b == wide) {
            needHeader(2, kind);
            pos += 3;
            return u16(pos - 2);
        }
        if (b == wide + 1) {
            needHeader(4, kind);
            pos += 5;
            return u32(pos - 4);
        }
        throw unexpected(b, what, offset());
    }

    /** True and consumes it when the next value is nil. */
    public boolean tryReadNil() {
        if (peek() != 0xc0) {
            return false;
        }
        pos++;
        return true;
    }

    /** Format of the next value, without consuming it. */
    public MessageFormat nextFormat() {
        int b = peek();
        if (b == 0xc1) {
            throw error("byte 0xc1 is not a msgpack value (msgpack never uses it)", offset());
        }
        return InBandLayout.format(b);
    }

    /** Checks that the whole in-band was read: a serializer's in-band is exactly one msgpack value. */
    public void expectEnd() {
        if (remaining() > 0) {
            throw error(remaining() + " unexpected bytes after the msgpack value", offset());
        }
    }
}
