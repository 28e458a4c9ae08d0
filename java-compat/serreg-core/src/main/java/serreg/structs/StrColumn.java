package serreg.structs;

import java.nio.ByteBuffer;

/**
 * A {@code str} column of an ext 2 list (docs/FORMAT.md section 10.3) read one value at a time by a
 * composed instance builder ({@link ColumnHandles#columnGetter}): instance i takes the next string.
 * When every value is a short ASCII str ({@link serreg.InBandReader#readAsciiStrRun}: checked, the
 * column's end known) each string is made from its bytes as instance i is built, in the pass that
 * builds the instances, without an array between; otherwise the column was read value by value
 * (with its checks and errors) into an array, handed out in order.
 */
final class StrColumn {
    private final byte[] a;
    private int p;
    private final Object[] values;
    private int i;

    private StrColumn(byte[] a, int p, Object[] values) {
        this.a = a;
        this.p = p;
        this.values = values;
    }

    /** The column of a run of short ASCII strs (a view with an array, as {@link serreg.InBandReader#readAsciiStrRun} returns). */
    static StrColumn ascii(ByteBuffer run) {
        return new StrColumn(run.array(), run.arrayOffset() + run.position(), null);
    }

    /** The column of values already read. */
    static StrColumn of(Object[] values) {
        return new StrColumn(null, 0, values);
    }

    /** The next value. */
    @SuppressWarnings("deprecation") // String(byte[], int hibyte, ...): one copy into a Latin-1 string (see serreg.Utf8)
    Object next() {
        if (values != null) {
            return values[i++];
        }
        int q = p;
        int n = a[q] & 0x1f;
        p = q + 1 + n;
        return new String(a, 0, q + 1, n);
    }
}
