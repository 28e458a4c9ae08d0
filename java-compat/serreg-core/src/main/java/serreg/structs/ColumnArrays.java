package serreg.structs;

import java.util.Arrays;

/**
 * The column arrays of one ext 2 list being written or read (docs/FORMAT.md section 10.3): per
 * field, a {@code long[]}, {@code double[]}, {@code float[]}, {@code boolean[]} or {@code Object[]}
 * of at least {@code count} elements. A thread keeps one set between lists ({@link #take},
 * {@link #giveBack}), so a list of 1,000 instances costs no column allocation after the first;
 * a list read or written inside another's column takes a set of its own. Arrays longer than
 * {@link ThreadTables#SCRATCH_MAX} are not kept; object columns are cleared when given back.
 */
final class ColumnArrays {
    private long[][] longs = new long[4][];
    private double[][] doubles = new double[4][];
    private float[][] floats = new float[4][];
    private boolean[][] bools = new boolean[4][];
    private Object[][] objects = new Object[4][];
    /** The columns handed out, by field: the array, its element count to clear (objects). */
    private Object[] cols = new Object[4];
    private int used;
    private int objectCount;

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

    /** Gives the set back to this thread (object columns cleared). */
    void giveBack() {
        for (int j = 0; j < used; j++) {
            Object[] o = objects[j];
            if (o != null && objectCount > 0) {
                Arrays.fill(o, 0, Math.min(objectCount, o.length), null);
            }
            cols[j] = null;
        }
        used = 0;
        objectCount = 0;
        ThreadTables.current().columnArrays = this;
    }

    private void reserve(int fields) {
        if (cols.length < fields) {
            int n = Math.max(fields, cols.length * 2);
            longs = Arrays.copyOf(longs, n);
            doubles = Arrays.copyOf(doubles, n);
            floats = Arrays.copyOf(floats, n);
            bools = Arrays.copyOf(bools, n);
            objects = Arrays.copyOf(objects, n);
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

    Object[] objects(int field, int count) {
        Object[] a = objects[field];
        if (a == null || a.length < count) {
            a = new Object[Math.max(count, 16)];
            if (keep(count)) {
                objects[field] = a;
            }
        }
        objectCount = Math.max(objectCount, count);
        cols[field] = a;
        return a;
    }
}
