package serreg.structs;

/**
 * The decoded columns of one ext 2 list as the composed instance builder reads them: the first
 * {@link #FIELDS} in fields of their own, the rest in an array. A field load cannot be changed by
 * the stores the building loop makes into arrays (the list's own), so the JIT keeps each
 * column in a register across the loop instead of reading it again per instance.
 */
final class ColumnView {
    /** Columns held in fields of their own. */
    static final int FIELDS = 8;
    final Object c0;
    final Object c1;
    final Object c2;
    final Object c3;
    final Object c4;
    final Object c5;
    final Object c6;
    final Object c7;
    final Object[] all;

    ColumnView(Object[] cols) {
        int n = cols.length;
        c0 = n > 0 ? cols[0] : null;
        c1 = n > 1 ? cols[1] : null;
        c2 = n > 2 ? cols[2] : null;
        c3 = n > 3 ? cols[3] : null;
        c4 = n > 4 ? cols[4] : null;
        c5 = n > 5 ? cols[5] : null;
        c6 = n > 6 ? cols[6] : null;
        c7 = n > 7 ? cols[7] : null;
        all = cols;
    }
}
