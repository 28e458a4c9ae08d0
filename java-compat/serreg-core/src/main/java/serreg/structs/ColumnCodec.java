package serreg.structs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.msgpack.core.MessageFormat;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;

/**
 * The packed columns of an ext 2 list of struct instances (docs/FORMAT.md section 10.3), between
 * primitive arrays and msgpack bins: integer columns as a kind byte and LEB128 varints (kind 1:
 * zigzag, when a value is negative), {@code float64} and {@code float32} columns as little-endian
 * bit patterns, {@code bool} columns as one byte per value. Reading checks everything the spec
 * refuses (kind byte, minimal varints of at most 64 bits, exactly {@code count} values, each in
 * the writer's declared range) and names the field and the offset.
 */
final class ColumnCodec {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private ColumnCodec() {
    }

    /** The wire form of a column of type {@code t}. */
    enum Wire { INT, FLOAT64, FLOAT32, BOOL, ARRAY }

    static Wire wireOf(FieldType t) {
        if (FieldType.intRange(t.kind) != null) {
            return Wire.INT;
        }
        return switch (t.kind) {
            case "float64" -> Wire.FLOAT64;
            case "float32" -> Wire.FLOAT32;
            case "bool" -> Wire.BOOL;
            default -> Wire.ARRAY;
        };
    }

    // ------------------------------------------------------------------------------ writing

    /** Writes an integer column (values already in the field's range; {@code unsigned}: a uint type, bits as u64). */
    static void writeInts(InBandWriter out, long[] values, int count, boolean unsigned) {
        out.writeVarintBin(values, count, unsigned);
    }

    /** Writes a {@code float64} column: each value's bits as they are (the canonical writer hands canonical values). */
    static void writeDoubles(InBandWriter out, double[] values, int count) {
        out.writeFloat64Bin(values, count);
    }

    /** Writes a {@code float32} column: each value's binary32 bits. */
    static void writeFloats(InBandWriter out, float[] values, int count) {
        out.writeFloat32Bin(values, count);
    }

    /** Writes a {@code bool} column. */
    static void writeBools(InBandWriter out, boolean[] values, int count) {
        byte[] b = scratch(count);
        for (int i = 0; i < count; i++) {
            b[i] = (byte) (values[i] ? 1 : 0);
        }
        out.writeBinary(b, 0, count);
    }

    /** This thread's array for a column's bytes (filled, then copied into the writer, before anything else is written). */
    private static byte[] scratch(int n) {
        ThreadTables tables = ThreadTables.current();
        byte[] b = tables.columnBytes;
        if (b == null || b.length < n) {
            b = new byte[Math.max(n, 256)];
            if (n <= ThreadTables.SCRATCH_MAX) {
                tables.columnBytes = b;
            }
        }
        return b;
    }

    // ------------------------------------------------------------------------------ reading

    /** A column's bin, located: its bytes from {@code base} in {@code array} for {@code length} bytes, at offset {@code at}. */
    record Bin(byte[] array, int base, int length, long at) {
    }

    /** Reads the bin of a packed column; refused, naming the field, when the next value is not a bin. */
    static Bin bin(InBandReader in, String where, FieldType t) {
        long at = in.offset();
        ByteBuffer view;
        try {
            MessageFormat f = in.nextFormat();
            if (f != MessageFormat.BIN8 && f != MessageFormat.BIN16 && f != MessageFormat.BIN32) {
                throw new DeserializationException(where + " (ext 2 column): the column of a " + t
                        + " field must be a bin, found msgpack " + f, at);
            }
            view = in.readBinaryView();
        } catch (DeserializationException e) {
            throw e.getMessage().startsWith(where) ? e : new DeserializationException(where + ": " + e.getMessage(), at);
        }
        long dataAt = in.offset() - view.remaining();
        if (view.hasArray()) {
            return new Bin(view.array(), view.arrayOffset() + view.position(), view.remaining(), dataAt);
        }
        byte[] copy = new byte[view.remaining()];
        view.duplicate().get(copy);
        return new Bin(copy, 0, copy.length, dataAt);
    }

    private static DeserializationException bad(String where, String what, long at) {
        return new DeserializationException(where + " (ext 2 column): " + what, at);
    }

    /**
     * Decodes an integer column of type {@code t} into {@code out[0, count)}: the values as the
     * type holds them (a uint64 above 2^63 - 1 as its long bits).
     */
    static void readInts(Bin bin, int count, FieldType t, String where, long[] out) {
        byte[] a = bin.array();
        int base = bin.base();
        int end = base + bin.length();
        int kind = checkIntHeader(bin, count, t, where);
        int p = base + 1;
        for (int i = 0; i < count; i++) {
            // One and two bytes inline (a two-byte varint is minimal when its second byte is not 0x00).
            if (p < end) {
                int b0 = a[p];
                if (b0 >= 0) {
                    out[i] = b0;
                    p++;
                    continue;
                }
                if (p + 1 < end) {
                    int b1 = a[p + 1];
                    if (b1 > 0) {
                        out[i] = (b0 & 0x7f) | (b1 << 7);
                        p += 2;
                        continue;
                    }
                }
            }
            p = readLongVarint(a, p, end, base, i, count, bin, where, out);
        }
        if (p != end) {
            throw bad(where, (end - p) + " byte(s) left over after the column's " + count + " values",
                    bin.at() + (p - base));
        }
        long[] range = FieldType.intRange(t.kind);
        if (kind == 1) {
            boolean negative = false;
            for (int i = 0; i < count; i++) {
                long u = out[i];
                long v = (u >>> 1) ^ -(u & 1);
                out[i] = v;
                negative |= v < 0;
                if (v < range[0] || v > range[1]) {
                    throw bad(where, "value " + i + " is " + v + ", outside " + t, bin.at());
                }
            }
            if (!negative) {
                throw bad(where, "kind byte 0x01 (zigzag) in a column without a negative value", bin.at());
            }
        } else if (!t.kind.equals("uint64")) {
            long high = range[1];
            for (int i = 0; i < count; i++) {
                long v = out[i];
                if (v < 0 || v > high) { // int64: a varint of 10 bytes at or above 2^63
                    throw bad(where, "value " + i + " is " + Long.toUnsignedString(v) + ", outside " + t, bin.at());
                }
            }
        }
    }

    /** Checks an integer column's length (at least a byte per value) and kind byte; returns the kind (0 or 1). */
    static int checkIntHeader(Bin bin, int count, FieldType t, String where) {
        if (bin.length() < 1 + (long) count) {
            throw bad(where, "a column of " + count + " values needs at least " + (1 + (long) count) + " bytes, it has "
                    + bin.length(), bin.at());
        }
        int kind = bin.array()[bin.base()];
        if (kind != 0 && kind != 1) {
            throw bad(where, "kind byte 0x" + Integer.toHexString(kind & 0xff) + " (0x00 or 0x01 expected)", bin.at());
        }
        if (kind == 1 && t.kind.startsWith("u")) {
            throw bad(where, "kind byte 0x01 (zigzag) in a column of unsigned type " + t, bin.at());
        }
        return kind;
    }

    /** Reads the varint of value {@code i} at {@code p} into {@code out[i]}, any length; returns the index after it. */
    private static int readLongVarint(byte[] a, int p, int end, int base, int i, int count, Bin bin, String where, long[] out) {
        if (p >= end) {
            throw bad(where, "the column ends after " + i + " of its " + count + " values", bin.at() + (p - base));
        }
        int start = p;
        long b = a[p++];
        long v = b & 0x7f;
        int shift = 7;
        while (b < 0) {
            if (p >= end) {
                throw bad(where, "the column ends inside value " + i + " of " + count, bin.at() + (start - base));
            }
            b = a[p++];
            if (shift == 63 && (b & 0xff) > 1) {
                throw bad(where, "value " + i + ": a varint that does not fit 64 bits", bin.at() + (start - base));
            }
            v |= (b & 0x7f) << shift;
            if (b == 0) {
                throw bad(where, "value " + i + ": a varint that is not minimal (its last byte is 0x00)",
                        bin.at() + (start - base));
            }
            shift += 7;
        }
        out[i] = v;
        return p;
    }

    /** Decodes a {@code float64} or {@code float32} column into {@code out[0, count)}. */
    static void readFloats(Bin bin, int count, boolean float32, String where, double[] out) {
        int width = float32 ? 4 : 8;
        if (bin.length() != (long) width * count) {
            throw bad(where, "a " + (float32 ? "float32" : "float64") + " column of " + count + " values is "
                    + ((long) width * count) + " bytes, this one " + bin.length(), bin.at());
        }
        byte[] a = bin.array();
        int base = bin.base();
        if (float32) {
            for (int i = 0; i < count; i++) {
                out[i] = Float.intBitsToFloat((int) INT_LE.get(a, base + 4 * i));
            }
        } else {
            for (int i = 0; i < count; i++) {
                out[i] = Double.longBitsToDouble((long) LONG_LE.get(a, base + 8 * i));
            }
        }
    }

    /** Decodes a {@code float32} column into {@code out[0, count)} (the binary32 values as they are). */
    static void readFloat32(Bin bin, int count, String where, float[] out) {
        if (bin.length() != 4L * count) {
            throw bad(where, "a float32 column of " + count + " values is " + (4L * count) + " bytes, this one "
                    + bin.length(), bin.at());
        }
        for (int i = 0; i < count; i++) {
            out[i] = Float.intBitsToFloat((int) INT_LE.get(bin.array(), bin.base() + 4 * i));
        }
    }

    /** Decodes a {@code bool} column into {@code out[0, count)}. */
    static void readBools(Bin bin, int count, String where, boolean[] out) {
        if (bin.length() != count) {
            throw bad(where, "a bool column of " + count + " values is " + count + " bytes, this one " + bin.length(),
                    bin.at());
        }
        byte[] a = bin.array();
        int base = bin.base();
        for (int i = 0; i < count; i++) {
            int b = a[base + i];
            if (b != 0 && b != 1) {
                throw bad(where, "value " + i + " is byte 0x" + Integer.toHexString(b & 0xff) + " (0x00 or 0x01 expected)",
                        bin.at() + i);
            }
            out[i] = b == 1;
        }
    }
}
