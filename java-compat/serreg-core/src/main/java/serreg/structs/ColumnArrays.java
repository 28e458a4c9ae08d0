package serreg.structs;

import java.util.Arrays;

/**
 * The column arrays of one ext 2 list being written or read (docs/FORMAT.md section 10.3): per
 * field, a {@code long[]}, {@code double[]}, {@code float[]}, {@code boolean[]} or {@code Object[]}
 * of at least {@code count} elements. A thread keeps one set of primitive arrays between lists
 * ({@link #take}, {@link #giveBack}), so a list of 1,000 instances costs no primitive column
 * allocation after the first; a list read or written inside another's column takes a set of its
 * own. Arrays longer than {@link ThreadTables#SCRATCH_MAX} are not kept; {@code Object[]} columns
 * are made per list ({@link #objects} says why).
 */
final class ColumnArrays {
    private long[][] longs = new long[4][];
    private double[][] doubles = new double[4][];
    private float[][] floats = new float[4][];
    private boolean[][] bools = new boolean[4][];
    /** The columns handed out, by field. */
    private Object[] cols = new Object[4];
    private int used;

    private ColumnArrays() {
    }

    /** This thread's free set, or a new one when it is in use (a list inside another's column). */
    static ColumnArrays take(int fields) {
        ThreadTables tables = ThreadTables.current();
        ColumnArrays a = tables.columnArrays;
        if (a == null) {
            a = new ColumnArrays();
        } else {
            tables.columnArrays = null;
        }
        a.reserve(fields);
        return a;
    }

    /** Gives the set back to this thread (the columns handed out forgotten). */
    void giveBack() {
        Arrays.fill(cols, 0, used, null);
        used = 0;
        ThreadTables.current().columnArrays = this;
    }

    private void reserve(int fields) {
        if (cols.length < fields) {
            int n = Math.max(fields, cols.length * 2);
            longs = Arrays.copyOf(longs, n);
            doubles = Arrays.copyOf(doubles, n);
            floats = Arrays.copyOf(floats, n);
            bools = Arrays.copyOf(bools, n);
            cols = new Object[n];
        }
        used = fields;
    }

    /** The columns (index = field), filled by the {@code get} methods. */
    Object[] columns() {
        return cols;
    }

    /** Puts {@code column} (an {@link IntCursor}) as field {@code field}'s column. */
    void put(int field, Object column) {
        cols[field] = column;
    }

    private static boolean keep(int count) {
        return count <= ThreadTables.SCRATCH_MAX;
    }

    long[] longs(int field, int count) {
        long[] a = longs[field];
        if (a == null || a.length < count) {
            a = new long[Math.max(count, 16)];
            if (keep(count)) {
                longs[field] = a;
            }
        }
        cols[field] = a;
        return a;
    }

    double[] doubles(int field, int count) {
        double[] a = doubles[field];
        if (a == null || a.length < count) {
            a = new double[Math.max(count, 16)];
            if (keep(count)) {
                doubles[field] = a;
            }
        }
        cols[field] = a;
        return a;
    }

    float[] floats(int field, int count) {
        float[] a = floats[field];
        if (a == null || a.length < count) {
            a = new float[Math.max(count, 16)];
            if (keep(count)) {
                floats[field] = a;
            }
        }
        cols[field] = a;
        return a;
    }

    boolean[] bools(int field, int count) {
        boolean[] a = bools[field];
        if (a == null || a.length < count) {
            a = new boolean[Math.max(count, 16)];
            if (keep(count)) {
                bools[field] = a;
            }
        }
        cols[field] = a;
        return a;
    }

    /**
     * A fresh {@code Object[]} for field {@code field}'s values. Not kept between lists: a kept
     * array lives in the old generation, where every store of a reference to a newer object (a
     * decoded string, the payload's own values) pays the collector's cross-region write barrier,
     * a memory fence per element; a new array is young, and its stores skip it.
     */
    Object[] objects(int field, int count) {
        Object[] a = new Object[count];
        cols[field] = a;
        return a;
    }
}
