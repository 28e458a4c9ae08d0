package serreg;

import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * The reads of nil, bool, int and float values for {@link ScalarReader} and {@link InBandReader}:
 * every msgpack int encoding (a uint64 above 2^63 - 1 as a BigInteger where any integer is
 * asked for, an error where a long is), float 64 (float 32 only where it is asked for, section 3),
 * each header's bytes checked to be there. Package-private (its public methods are
 * {@link InBandReader}'s); not thread-safe.
 */
abstract class NumberReader extends InBandBytes {
    NumberReader(ByteBuffer inBand, int skip) {
        super(inBand, skip);
    }

    NumberReader(ByteBuffer inBand, int from, int length) {
        super(inBand, from, length);
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
    final long readSmallInteger(int b, long at) {
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

    /** True and consumes it when the next value is nil. */
    public boolean tryReadNil() {
        if (peek() != 0xc0) {
            return false;
        }
        pos++;
        return true;
    }
}
