package serreg;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The in-band document's byte array, grown geometrically, and the msgpack writes on it under
 * {@link InBandWriter} (which adds values, nested values and OOB buffers): nil, bool, int, float,
 * str (strict UTF-8, ASCII byte for byte), bin (bytes, and the float columns of a struct list),
 * the array and map headers, and bytes already encoded. Every integer and length gets msgpack's
 * shortest encoding; the header encodings are {@link InBandLayout}'s. The twin of
 * {@link ScalarReader}. Package-private (its public methods are {@link InBandWriter}'s, whose
 * fluent API they return); not thread-safe.
 */
abstract class ScalarWriter {
    /** The document: written from index 0 to {@link #pos}. */
    byte[] buf;
    /** Index of the next byte to write. */
    int pos;

    /** A writer on {@code buf}, from its start. */
    ScalarWriter(byte[] buf) {
        this.buf = buf;
    }

    public InBandWriter writeNil() {
        ensure(1);
        buf[pos++] = (byte) 0xc0;
        return (InBandWriter) this;
    }

    public InBandWriter writeBoolean(boolean v) {
        ensure(1);
        buf[pos++] = (byte) (v ? 0xc3 : 0xc2);
        return (InBandWriter) this;
    }

    public InBandWriter writeLong(long v) {
        ensure(InBandLayout.MAX_INT);
        pos = InBandLayout.putLong(buf, pos, v);
        return (InBandWriter) this;
    }

    /** Writes an integer in [-2^63, 2^64) as a msgpack int. */
    public InBandWriter writeInteger(BigInteger v) {
        if (v.bitLength() < 64) {
            return writeLong(v.longValue());
        }
        if (v.signum() < 0 || v.bitLength() > 64) {
            throw new SerializationException("integer " + v + " is outside the msgpack int range");
        }
        return writeUnsignedLong(v.longValue());
    }

    /** Writes a u64 held in a long's bits. */
    public InBandWriter writeUnsignedLong(long bits) {
        if (bits >= 0) {
            return writeLong(bits);
        }
        ensure(InBandLayout.MAX_INT);
        pos = InBandLayout.putUint64(buf, pos, bits);
        return (InBandWriter) this;
    }

    public InBandWriter writeDouble(double v) {
        ensure(9);
        buf[pos] = (byte) 0xcb;
        Bytes.putLongBE(buf, pos + 1, Double.doubleToRawLongBits(v));
        pos += 9;
        return (InBandWriter) this;
    }

    /** msgpack float 32: only numpy.float32 and numpy.complex64 use it (section 3). */
    public InBandWriter writeFloat(float v) {
        ensure(5);
        buf[pos] = (byte) 0xca;
        Bytes.putIntBE(buf, pos + 1, Float.floatToRawIntBits(v));
        pos += 5;
        return (InBandWriter) this;
    }

    /**
     * Writes a msgpack str, its UTF-8 straight into the document (no intermediate array): ASCII
     * byte for byte after a header sized for it (a string of up to 7 chars as one 8-byte store
     * of header and chars, the bytes after its own overwritten by what comes next or past the
     * end written); other text after its UTF-8 length is counted. Refuses text that is not
     * valid UTF-16 (lone surrogates).
     */
    public InBandWriter writeString(String s) {
        int n = s.length();
        ensure(InBandLayout.MAX_HEADER + Math.max(n, 8)); // room for an 8-byte store after the header
        byte[] b = buf;
        int p = pos;
        if (n <= 8) {
            long word = Utf8.asciiWord(s, n);
            if (word < 0) {
                return writeUtf8(s);
            }
            if (n < 8) {
                Bytes.putLongLE(b, p, word << 8 | 0xa0 | n); // fixstr header, then the chars
            } else {
                b[p] = (byte) (0xa0 | n);
                Bytes.putLongLE(b, p + 1, word);
            }
            pos = p + 1 + n;
            return (InBandWriter) this;
        }
        int at = InBandLayout.putStrHeader(b, p, n);
        if (!Utf8.putAscii(s, n, b, at)) {
            return writeUtf8(s);
        }
        pos = at + n;
        return (InBandWriter) this;
    }

    /**
     * Writes {@code values[from]}, {@code values[from + 1]} ... (at most {@code count}), each a
     * String, as {@link #writeString} writes it, and stops before the first that is not a String
     * (null included), leaving it unwritten: a column of strings in one loop, the twin of
     * {@link InBandReader#readStrings}.
     *
     * @return how many values it wrote
     */
    public int writeStrings(Object[] values, int from, int count) {
        for (int i = 0; i < count; i++) {
            if (!(values[from + i] instanceof String s)) {
                return i;
            }
            writeString(s);
        }
        return count;
    }

    /** A str that is not all ASCII: its UTF-8 length first (for the header), then its bytes. */
    private InBandWriter writeUtf8(String s) {
        int length = Utf8.strLength(s);
        ensure(InBandLayout.MAX_HEADER + length);
        pos = Utf8.encode(s, buf, InBandLayout.putStrHeader(buf, pos, length));
        return (InBandWriter) this;
    }

    public InBandWriter writeBinary(byte[] bytes) {
        writeBinaryHeader(bytes.length);
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
        return (InBandWriter) this;
    }

    /** Writes a msgpack bin of {@code length} bytes of {@code bytes} from {@code offset}. */
    public InBandWriter writeBinary(byte[] bytes, int offset, int length) {
        writeBinaryHeader(length);
        System.arraycopy(bytes, offset, buf, pos, length);
        pos += length;
        return (InBandWriter) this;
    }

    public InBandWriter writeBinary(ByteBuffer bytes) {
        int n = bytes.remaining();
        writeBinaryHeader(n);
        bytes.duplicate().get(buf, pos, n);
        pos += n;
        return (InBandWriter) this;
    }

    /**
     * Writes a msgpack bin of the {@code count} values' binary64 bit patterns, little-endian
     * (a struct list's {@code float64} column, docs/FORMAT.md section 10.3), straight into the
     * document.
     *
     * @param values the values (their bits as they are)
     * @param count how many, from index 0
     * @return this writer
     */
    public InBandWriter writeFloat64Bin(double[] values, int count) {
        writeBinaryHeader(8 * count);
        byte[] b = buf;
        int p = pos;
        for (int i = 0; i < count; i++) {
            Bytes.putLongLE(b, p + 8 * i, Double.doubleToRawLongBits(values[i]));
        }
        pos = p + 8 * count;
        return (InBandWriter) this;
    }

    /**
     * Writes a msgpack bin of the {@code count} values' binary32 bit patterns, little-endian (a
     * struct list's {@code float32} column), straight into the document.
     *
     * @param values the values
     * @param count how many, from index 0
     * @return this writer
     */
    public InBandWriter writeFloat32Bin(float[] values, int count) {
        writeBinaryHeader(4 * count);
        byte[] b = buf;
        int p = pos;
        for (int i = 0; i < count; i++) {
            Bytes.putIntLE(b, p + 4 * i, Float.floatToRawIntBits(values[i]));
        }
        pos = p + 4 * count;
        return (InBandWriter) this;
    }

    /**
     * Writes a msgpack bin of an integer column of a struct list (docs/FORMAT.md section 10.3):
     * the kind byte, then the {@code count} values as LEB128 varints (kind 0: each as it is; kind
     * 1, when a signed column holds a value below 0: each zigzagged), straight into the document.
     * The varints go after room for the header of the largest size the column could take (10
     * bytes a value); the header is put once the size is known, the varints moved back to it when
     * that header is shorter. The bytes are those of the varints written apart and then copied.
     *
     * @param values the values
     * @param count how many, from index 0
     * @param unsigned whether the column's type is unsigned (kind 0, every value taken as unsigned)
     * @return this writer
     */
    public InBandWriter writeVarintBin(long[] values, int count, boolean unsigned) {
        long worst = 1 + 10L * count;
        ensure((int) Math.min(InBandLayout.MAX_HEADER + worst, Integer.MAX_VALUE));
        int room = binHeaderSize(worst);
        byte[] b = buf;
        int start = pos + room;
        b[start] = 0;
        int p = start + 1;
        int i = 0;
        for (; i < count; i++) {
            long v = values[i];
            if (v < 0 && !unsigned) {
                break;
            }
            p = putVarint(b, p, v);
        }
        if (i < count) { // a value below 0 in a signed column: every value zigzagged (kind 1)
            b[start] = 1;
            p = start + 1;
            for (int j = 0; j < count; j++) {
                long v = values[j];
                p = putVarint(b, p, (v << 1) ^ (v >> 63));
            }
        }
        int length = p - start;
        int header = binHeaderSize(length);
        if (header != room) {
            System.arraycopy(b, start, b, pos + header, length);
        }
        InBandLayout.putBinHeader(b, pos, length);
        pos += header + length;
        return (InBandWriter) this;
    }

    /** The size of a msgpack bin header for {@code n} bytes (what {@link InBandLayout#putBinHeader} writes). */
    private static int binHeaderSize(long n) {
        return n <= 0xff ? 2 : n <= 0xffff ? 3 : 5;
    }

    /** Puts {@code v} as an unsigned LEB128 varint at {@code p}; the index after it. */
    private static int putVarint(byte[] b, int p, long v) {
        while ((v & ~0x7fL) != 0) {
            b[p++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    /**
     * Writes a msgpack bin header for {@code length} bytes and moves past them, leaving them to
     * be filled in place by {@link #putFloat64At}, {@link #putFloat32At} and {@link #putByteAt}
     * while the writer goes on after them (a struct list's fixed-width columns, filled instance
     * by instance as the list is walked once). Every reserved byte must be put before the
     * document is finished: until then they hold whatever the writer's array held.
     *
     * @param length the bin's size in bytes
     * @return the index of the bin's first byte, for the {@code put} methods
     */
    public int reserveBinary(int length) {
        writeBinaryHeader(length);
        int at = pos;
        pos = at + length;
        return at;
    }

    /**
     * Puts {@code v}'s binary64 bits, little-endian, at index {@code at} of a {@link #reserveBinary} range.
     *
     * @param at the index
     * @param v the value
     */
    public void putFloat64At(int at, double v) {
        Bytes.putLongLE(buf, at, Double.doubleToRawLongBits(v));
    }

    /**
     * Puts {@code v}'s binary32 bits, little-endian, at index {@code at} of a {@link #reserveBinary} range.
     *
     * @param at the index
     * @param v the value
     */
    public void putFloat32At(int at, float v) {
        Bytes.putIntLE(buf, at, Float.floatToRawIntBits(v));
    }

    /**
     * Puts the byte {@code v} at index {@code at} of a {@link #reserveBinary} range.
     *
     * @param at the index
     * @param v the byte (its low 8 bits)
     */
    public void putByteAt(int at, int v) {
        buf[at] = (byte) v;
    }

    /** Writes a bin header and makes room for its {@code n} bytes. */
    private void writeBinaryHeader(int n) {
        ensure(InBandLayout.MAX_HEADER + n);
        pos = InBandLayout.putBinHeader(buf, pos, n);
    }

    public InBandWriter writeArrayHeader(int size) {
        return writeContainerHeader(size, 0x90, 0xdc);
    }

    public InBandWriter writeMapHeader(int size) {
        return writeContainerHeader(size, 0x80, 0xde);
    }

    private InBandWriter writeContainerHeader(int size, int fix, int wide) {
        if (size < 0) {
            throw new SerializationException("a msgpack container cannot hold " + size + " items");
        }
        ensure(InBandLayout.MAX_HEADER);
        pos = InBandLayout.putContainerHeader(buf, pos, size, fix, wide);
        return (InBandWriter) this;
    }

    /** Appends raw, already-encoded msgpack bytes (used for sorted set elements). */
    public InBandWriter writeEncoded(byte[] msgpack) {
        ensure(msgpack.length);
        System.arraycopy(msgpack, 0, buf, pos, msgpack.length);
        pos += msgpack.length;
        return (InBandWriter) this;
    }

    /** Appends {@code length} raw, already-encoded msgpack bytes of {@code msgpack} from {@code offset}. */
    public InBandWriter writeEncoded(byte[] msgpack, int offset, int length) {
        ensure(length);
        System.arraycopy(msgpack, offset, buf, pos, length);
        pos += length;
        return (InBandWriter) this;
    }

    /** Writes the 8 wire bytes of a ClassIDHash (its u64 little-endian reading). */
    final void writeHash(long hash) {
        ensure(8);
        Bytes.putLongLE(buf, pos, hash);
        pos += 8;
    }

    /** Appends bytes as they are (another serializer's in-band). */
    final void writeRaw(ByteBuffer bytes) {
        int n = bytes.remaining();
        ensure(n);
        bytes.get(bytes.position(), buf, pos, n); // absolute: no view made, the caller's position kept
        pos += n;
    }

    final void ensure(int n) {
        if (n > buf.length - pos) {
            grow(n);
        }
    }

    private void grow(int n) {
        long needed = (long) pos + n;
        if (needed > Integer.MAX_VALUE - 16) {
            throw new SerializationException("an in-band of " + needed + " bytes does not fit in one Java array;"
                    + " large data belongs in OOB buffers (an NDArray, a bytearray)");
        }
        int size = (int) Math.max(needed, Math.min((long) buf.length * 2, Integer.MAX_VALUE - 16));
        buf = Arrays.copyOf(buf, Math.max(size, 64));
    }
}
