package serreg.structs;

import serreg.DeserializationException;

/**
 * An integer column of an ext 2 list (docs/FORMAT.md section 10.3) read one value at a time by a
 * composed instance builder ({@link ColumnHandles#columnGetter}): instance i takes the next
 * varint of each of its integer columns, so the columns are decoded side by side, in the pass
 * that builds the instances, without an array between. Every check of {@link ColumnCodec#readInts}
 * is made: the kind byte and the length when the cursor is made, each value's form and range as
 * it is read, and ({@link #finish}) that the column holds exactly its values and, zigzag, a
 * negative one.
 */
final class IntCursor {
    private final byte[] a;
    private final int base;
    private final int end;
    private final long low;
    private final long high;
    private final boolean zigzag;
    /** Whether every two-byte varint's value (below 2^14, unzigzagged: -2^13 to 2^13 - 1) is in the type's range. */
    private final boolean twoFit;
    private final FieldType type;
    private final String where;
    private final long at;
    private int p;
    private boolean negative;

    private IntCursor(ColumnCodec.Bin bin, boolean zigzag, FieldType t, String where) {
        this.a = bin.array();
        this.base = bin.base();
        this.end = bin.base() + bin.length();
        this.p = bin.base() + 1;
        long[] range = FieldType.intRange(t.kind);
        this.low = range[0];
        this.high = range[1];
        this.zigzag = zigzag;
        this.twoFit = zigzag ? low <= -(1L << 13) && high >= (1L << 13) - 1 : Long.compareUnsigned(high, (1L << 14) - 1) >= 0;
        this.type = t;
        this.where = where;
        this.at = bin.at();
    }

    /** The cursor over a column of {@code count} values of type {@code t}, its kind byte and length checked. */
    static IntCursor of(ColumnCodec.Bin bin, int count, FieldType t, String where) {
        return new IntCursor(bin, ColumnCodec.checkIntHeader(bin, count, t, where) == 1, t, where);
    }

    /**
     * The next value. A one-byte varint is in the range of every integer type (unzigzagged: -64
     * to 63; else 0 to 127), and a two-byte one (below 2^14) is whenever {@link #twoFit} says so,
     * so those two forms are returned with only the zigzag sign noted; the rest are range-checked.
     */
    long next() {
        int q = p;
        if (q + 1 < end) {
            int b0 = a[q];
            if (b0 >= 0) {
                p = q + 1;
                return zigzag ? unzigzag(b0) : b0;
            }
            int b1 = a[q + 1];
            if (b1 > 0) {
                p = q + 2;
                int u = (b0 & 0x7f) | (b1 << 7);
                if (twoFit) {
                    return zigzag ? unzigzag(u) : u;
                }
                return value(u);
            }
        }
        return value(slow());
    }

    private long unzigzag(int u) {
        int v = (u >>> 1) ^ -(u & 1);
        negative |= v < 0;
        return v;
    }

    private long value(long u) {
        if (zigzag) {
            long v = (u >>> 1) ^ -(u & 1);
            negative |= v < 0;
            if (v < low || v > high) {
                throw bad("a value is " + v + ", outside " + type, p);
            }
            return v;
        }
        if (Long.compareUnsigned(u, high) > 0) {
            throw bad("a value is " + Long.toUnsignedString(u) + ", outside " + type, p);
        }
        return u;
    }

    private long slow() {
        int start = p;
        if (start >= end) {
            throw bad("the column ends before all its values", start);
        }
        int q = start;
        long b = a[q++];
        long v = b & 0x7f;
        int shift = 7;
        while (b < 0) {
            if (q >= end) {
                throw bad("the column ends inside a value", start);
            }
            b = a[q++];
            if (shift == 63 && (b & 0xff) > 1) {
                throw bad("a varint that does not fit 64 bits", start);
            }
            v |= (b & 0x7f) << shift;
            if (b == 0) {
                throw bad("a varint that is not minimal (its last byte is 0x00)", start);
            }
            shift += 7;
        }
        p = q;
        return v;
    }

    /** Checks, once every instance has taken its value, that nothing is left over and a zigzag column had a negative. */
    void finish(int count) {
        if (p != end) {
            throw bad((end - p) + " byte(s) left over after the column's " + count + " values", p);
        }
        if (zigzag && !negative) {
            throw bad("kind byte 0x01 (zigzag) in a column without a negative value", base);
        }
    }

    private DeserializationException bad(String what, int index) {
        return new DeserializationException(where + " (ext 2 column): " + what, at + (index - base));
    }
}
