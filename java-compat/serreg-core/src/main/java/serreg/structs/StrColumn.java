package serreg.structs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import serreg.InBandReader;

/**
 * A {@code str} column of an ext 2 list (docs/FORMAT.md section 10.3) read one value at a time by a
 * composed instance builder ({@link ColumnHandles#columnGetter}): instance i takes the next string.
 * Three forms. The list's last column is read as the instances are built ({@link #last}): nothing
 * after it needs its end, so it is not scanned first. When the reader reads an array, the column
 * reads its short ASCII strs (a fixstr of bytes below 0x80 within the reader's bytes) from that
 * array itself, its position in a field of its own, and moves the reader on before any other value
 * (read as {@link ColumnLayout} reads a column value by value: same checks, same errors with field
 * and offset) and once the last instance is built ({@link #finish}); otherwise every value goes
 * through the reader. Any other column: when every value is a short ASCII str
 * ({@link serreg.InBandReader#readAsciiStrRun}: checked, the column's end known) each string is
 * made from its bytes as instance i is built; otherwise the column was read value by value into an
 * array, handed out in order.
 */
final class StrColumn {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** The bytes of a run of short ASCII strs (the second form), from index {@code p}. */
    private final byte[] a;
    /** The next value's index in {@link #a} or {@link #own}. */
    private int p;
    private final Object[] values;
    /** The last column's reader, its layout and field index (null for the other two forms). */
    private final InBandReader in;
    private final ColumnLayout layout;
    private final int field;
    /**
     * The last column read from the reader's array by this column: that array (null: every value
     * through the reader), the end of what the reader may read, and the index the reader is at.
     */
    private final byte[] own;
    private final int end;
    private int synced;

    private StrColumn(byte[] a, int p, Object[] values, InBandReader in, ColumnLayout layout, int field, byte[] own,
            int end) {
        this.a = a;
        this.p = p;
        this.values = values;
        this.in = in;
        this.layout = layout;
        this.field = field;
        this.own = own;
        this.end = end;
        this.synced = p;
    }

    /** The column of a run of short ASCII strs (a view with an array, as {@link serreg.InBandReader#readAsciiStrRun} returns). */
    static StrColumn ascii(ByteBuffer run) {
        return new StrColumn(run.array(), run.arrayOffset() + run.position(), null, null, null, 0, null, 0);
    }

    /** The column of values already read. */
    static StrColumn of(Object[] values) {
        return new StrColumn(null, 0, values, null, null, 0, null, 0);
    }

    /**
     * The list's last column, {@code field} of {@code layout}, its array header read: its values
     * are read from {@code in}'s bytes as the instances take them (the reader is at the first one;
     * {@link #finish} moves it past the last).
     */
    static StrColumn last(InBandReader in, ColumnLayout layout, int field) {
        ByteBuffer rest = in.remainingView();
        if (rest.hasArray()) {
            int at = rest.arrayOffset() + rest.position();
            return new StrColumn(null, at, null, in, layout, field, rest.array(), at + rest.remaining());
        }
        return new StrColumn(null, 0, null, in, layout, field, null, 0);
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
        byte[] b = own;
        if (b != null) {
            int q = p;
            if (q < end) {
                int h = b[q];
                int n = h & 0x1f;
                if ((h & 0xe0) == 0xa0 && n < end - q && isAscii(b, q + 1, n)) {
                    p = q + 1 + n;
                    return shortAscii(b, q + 1, n);
                }
            }
            return throughReader(i);
        }
        if (in == null) {
            return values[i];
        }
        String s = in.readAsciiFixStr();
        return s != null ? s : layout.readValue(in, field, i);
    }

    /** Value i, not a short ASCII str, read through the reader (moved to it first), with its checks and errors. */
    private Object throughReader(int i) {
        in.skip(p - synced, "a str column");
        long before = in.offset();
        Object v = layout.readValue(in, field, i);
        p += (int) (in.offset() - before);
        synced = p;
        return v;
    }

    /** Moves the reader past the values this column read from its array (after the last instance is built). */
    void finish() {
        if (own != null) {
            in.skip(p - synced, "a str column");
            synced = p;
        }
    }

    /*
     * The ASCII check and the string maker below are serreg.Utf8's (isAscii, shortAscii), written
     * out here: called there, the JIT may have compiled them on their own first, for other callers,
     * and then not inline them into the instance builder (measured: pointStructs1k decoded in 7.6
     * to 7.7 us of thread CPU with these, 9.0 to 9.1 through the reader's readAsciiFixStr).
     */

    /** Whether {@code b[from, from + n)} (within the array) is all ASCII. */
    private static boolean isAscii(byte[] b, int from, int n) {
        if (n < 8 && from + 8 <= b.length) {
            return ((long) LONG_LE.get(b, from) & ((1L << (n << 3)) - 1) & 0x8080808080808080L) == 0;
        }
        for (int k = 0; k < n; k++) {
            if (b[from + k] < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The text of {@code b[from, from + n)}, ASCII bytes: up to 6 chars by concatenation (a new
     * Latin-1 array written in place, no copy call), longer text with the Latin-1 constructor.
     */
    @SuppressWarnings("deprecation") // String(byte[], int hibyte, ...): one copy into a Latin-1 string
    private static String shortAscii(byte[] b, int from, int n) {
        switch (n) {
            case 0:
                return "";
            case 1:
                return String.valueOf((char) (b[from] & 0x7f));
            case 2:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f);
            case 3:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f);
            case 4:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f)
                        + (char) (b[from + 3] & 0x7f);
            case 5:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f)
                        + (char) (b[from + 3] & 0x7f) + (char) (b[from + 4] & 0x7f);
            case 6:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f)
                        + (char) (b[from + 3] & 0x7f) + (char) (b[from + 4] & 0x7f) + (char) (b[from + 5] & 0x7f);
            default:
                return new String(b, 0, from, n);
        }
    }
}
