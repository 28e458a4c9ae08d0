package serreg;

import java.nio.ByteBuffer;
import org.msgpack.core.MessageFormat;

/**
 * The reads of scalar values and headers for {@link InBandReader} (which adds arrays, maps and
 * nested values): any scalar by its first byte, str (strict UTF-8), bin, and the array and map
 * headers, whose counts are checked against the bytes left; nil, bool, int and float are
 * {@link NumberReader}'s, the text of strs {@link TextReader}'s. Package-private (its public
 * methods are {@link InBandReader}'s); not thread-safe.
 */
abstract class ScalarReader extends TextReader {
    ScalarReader(ByteBuffer inBand, int skip) {
        super(inBand, skip);
    }

    ScalarReader(ByteBuffer inBand, int from, int length) {
        super(inBand, from, length);
    }

    /** Reads an ext value (nested value or struct), whose first byte is at the position. */
    abstract Object readExt();

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
