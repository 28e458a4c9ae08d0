package serreg.structs;

import serreg.InBandWriter;

/**
 * Where one walk over an ext 2 list's instances (docs/FORMAT.md section 10.3) puts their field
 * values, for a class whose columns start with fixed-width ones ({@code float64},
 * {@code float32}, {@code bool} fields of those Java primitives): those are written in place,
 * value i at its index in a bin reserved for the column
 * ({@link InBandWriter#reserveBinary}); a {@code str} column right after them is written straight
 * into the writer as each instance gives its value (it needs no size first: its array header
 * counts values); any column after that goes into the array {@link #cols} holds for it, written
 * once the walk is over. The composed handle of {@link ColumnHandles#directExtractor} calls it.
 * No column array is made for the columns written on the way.
 */
final class ColumnSink {
    private final InBandWriter out;
    /** Per fixed-width column: the index of its bin's first byte in the writer's array. */
    private final int[] at;
    /** The columns after the one written on the way (index = field; others unused). */
    final Object[] cols;
    private final String[] where;
    private final FieldType[] types;

    ColumnSink(InBandWriter out, int[] at, Object[] cols, String[] where, FieldType[] types) {
        this.out = out;
        this.at = at;
        this.cols = cols;
        this.where = where;
        this.types = types;
    }

    /** Value i of {@code float64} column k. */
    void float64(int k, int i, double v) {
        out.putFloat64At(at[k] + 8 * i, v);
    }

    /** Value i of {@code float32} column k. */
    void float32(int k, int i, float v) {
        out.putFloat32At(at[k] + 4 * i, v);
    }

    /** Value i of {@code bool} column k. */
    void bool(int k, int i, boolean v) {
        out.putByteAt(at[k] + i, v ? 1 : 0);
    }

    /** The next value of {@code str} column k, written at once (as {@link InBandWriter#writeStrings} writes each). */
    void str(int k, Object v) {
        if (!(v instanceof String s)) {
            throw FieldValues.bad(where[k], types[k], v);
        }
        out.writeString(s);
    }
}
