package serreg.structs;

import java.nio.ByteBuffer;
import serreg.InBandReader;

/**
 * A {@code str} column of an ext 2 list (docs/FORMAT.md section 10.3) read one value at a time by a
 * composed instance builder ({@link ColumnHandles#columnGetter}): instance i takes the next string.
 * Three forms. The list's last column is read from the reader itself as the instances are built
 * ({@link #last}): a short ASCII str is made into its string at once, any other value is read as
 * {@link ColumnLayout} reads a column value by value (same checks, same errors with field and
 * offset); nothing after it needs its end, so it is not scanned first. Any other column: when
 * every value is a short ASCII str ({@link serreg.InBandReader#readAsciiStrRun}: checked, the
 * column's end known) each string is made from its bytes as instance i is built; otherwise the
 * column was read value by value into an array, handed out in order.
 */
final class StrColumn {
    private final byte[] a;
    private int p;
    private final Object[] values;
    /** The last column's reader, its layout and field index (null for the other two forms). */
    private final InBandReader in;
    private final ColumnLayout layout;
    private final int field;

    private StrColumn(byte[] a, int p, Object[] values, InBandReader in, ColumnLayout layout, int field) {
        this.a = a;
        this.p = p;
        this.values = values;
        this.in = in;
        this.layout = layout;
        this.field = field;
    }

    /** The column of a run of short ASCII strs (a view with an array, as {@link serreg.InBandReader#readAsciiStrRun} returns). */
    static StrColumn ascii(ByteBuffer run) {
        return new StrColumn(run.array(), run.arrayOffset() + run.position(), null, null, null, 0);
    }

    /** The column of values already read. */
    static StrColumn of(Object[] values) {
        return new StrColumn(null, 0, values, null, null, 0);
    }

    /**
     * The list's last column, {@code field} of {@code layout}, its array header read: its values
     * are read from {@code in} as the instances take them (the reader is at the first one).
     */
    static StrColumn last(InBandReader in, ColumnLayout layout, int field) {
        return new StrColumn(null, 0, null, in, layout, field);
    }

    /** The next value: instance {@code i}'s (the builder takes them in order, i = 0, 1, ...). */
    @SuppressWarnings("deprecation") // String(byte[], int hibyte, ...): one copy into a Latin-1 string (see serreg.Utf8)
    Object next(int i) {
        if (a != null) {
            int q = p;
            int n = a[q] & 0x1f;
            p = q + 1 + n;
            return new String(a, 0, q + 1, n);
        }
        if (in != null) {
            String s = in.readAsciiFixStr();
            return s != null ? s : layout.readValue(in, field, i);
        }
        return values[i];
    }
}
