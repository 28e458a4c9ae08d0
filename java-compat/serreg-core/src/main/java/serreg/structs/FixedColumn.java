package serreg.structs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import serreg.DeserializationException;

/**
 * A {@code float64}, {@code float32} or {@code bool} column of an ext 2 list (docs/FORMAT.md
 * section 10.3) read in place by a composed instance builder ({@link ColumnHandles#columnGetter}):
 * value i is at a fixed place in the bin, so instance i reads it straight into its constructor or
 * setter argument, unboxed, with no array between. Every check of {@link ColumnCodec#readFloats},
 * {@link ColumnCodec#readFloat32} and {@link ColumnCodec#readBools} is made, with the same
 * messages, once per column when the column is made: the length, and for a bool column each
 * byte (0x00 or 0x01), so reading a value checks nothing.
 */
final class FixedColumn {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] a;
    private final int base;

    private FixedColumn(ColumnCodec.Bin bin) {
        this.a = bin.array();
        this.base = bin.base();
    }

    /** A {@code float64} ({@code float32}: a {@code float32}) column of {@code count} values, its length checked. */
    static FixedColumn floats(ColumnCodec.Bin bin, int count, boolean float32, String where) {
        int width = float32 ? 4 : 8;
        if (bin.length() != (long) width * count) {
            throw bad(where, "a " + (float32 ? "float32" : "float64") + " column of " + count + " values is "
                    + ((long) width * count) + " bytes, this one " + bin.length(), bin.at());
        }
        return new FixedColumn(bin);
    }

    /** A {@code bool} column of {@code count} values, its length and every byte checked. */
    static FixedColumn bools(ColumnCodec.Bin bin, int count, String where) {
        if (bin.length() != count) {
            throw bad(where, "a bool column of " + count + " values is " + count + " bytes, this one " + bin.length(),
                    bin.at());
        }
        byte[] a = bin.array();
        int base = bin.base();
        int any = 0;
        for (int i = 0; i < count; i++) {
            any |= a[base + i];
        }
        if ((any & ~1) != 0) { // some byte is not 0x00 or 0x01: find the first, for the message
            for (int i = 0; i < count; i++) {
                int b = a[base + i];
                if (b != 0 && b != 1) {
                    throw bad(where, "value " + i + " is byte 0x" + Integer.toHexString(b & 0xff)
                            + " (0x00 or 0x01 expected)", bin.at() + i);
                }
            }
        }
        return new FixedColumn(bin);
    }

    /** Value i of a {@code float64} column. */
    double float64(int i) {
        return Double.longBitsToDouble((long) LONG_LE.get(a, base + 8 * i));
    }

    /** Value i of a {@code float32} column, as a double (a {@code double} field reading a float32). */
    double float32Widened(int i) {
        return Float.intBitsToFloat((int) INT_LE.get(a, base + 4 * i));
    }

    /** Value i of a {@code float32} column. */
    float float32(int i) {
        return Float.intBitsToFloat((int) INT_LE.get(a, base + 4 * i));
    }

    /** Value i of a {@code bool} column (every byte checked to be 0x00 or 0x01). */
    boolean bool(int i) {
        return a[base + i] != 0;
    }

    private static DeserializationException bad(String where, String what, long at) {
        return new DeserializationException(where + " (ext 2 column): " + what, at);
    }
}
