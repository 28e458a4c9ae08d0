package serreg.structs;

import java.math.BigInteger;
import serreg.DeserializationException;
import serreg.InBandReader;

/**
 * How the columns of one writer definition's ext 2 lists are read by one reader (docs/FORMAT.md
 * section 10.3): per writer field, the column's wire form and what it is decoded into: a
 * primitive array when the reader's field is that primitive ({@code long[]} for any integer
 * field of a signed or narrower type, {@code double[]}, {@code float[]}, {@code boolean[]}), the
 * reader's values ({@code Object[]}, each converted by its {@link Conversions.Reader}) otherwise,
 * or nothing for a field the reader lacks (the column is still read and checked).
 */
final class ColumnLayout {
    /** What a field's column is decoded into. */
    enum Kind { LONG, DOUBLE, FLOAT, BOOL, OBJECT, SKIP }

    private final FieldType[] types;
    private final String[] where;
    private final ColumnCodec.Wire[] wires;
    final Kind[] kinds;
    private final Conversions.Reader[] convert;
    /**
     * Per field: a {@code str} or {@code optional[str]} column whose values the reader takes as
     * they are (its field is not an {@code Optional}), read a run of strings at a time.
     */
    private final boolean[] strings;

    /**
     * The layout of a writer definition's {@code types} ({@code where}: struct.field) for a
     * reader whose field for writer field j has erasure {@code raws[j]} ({@code null}: the
     * reader has no such field) and is converted with {@code convert[j]}.
     */
    ColumnLayout(FieldType[] types, String[] where, Class<?>[] raws, Conversions.Reader[] convert) {
        this.types = types;
        this.where = where;
        this.convert = convert;
        this.wires = new ColumnCodec.Wire[types.length];
        this.kinds = new Kind[types.length];
        this.strings = new boolean[types.length];
        for (int j = 0; j < types.length; j++) {
            wires[j] = ColumnCodec.wireOf(types[j]);
            kinds[j] = kindOf(wires[j], types[j], raws[j], convert[j]);
            FieldType t = types[j];
            strings[j] = kinds[j] == Kind.OBJECT && raws[j] != java.util.Optional.class && (t.kind.equals("str")
                    || t.kind.equals("optional") && t.args.get(0).kind.equals("str"));
        }
    }

    private static Kind kindOf(ColumnCodec.Wire wire, FieldType t, Class<?> raw, Conversions.Reader convert) {
        if (convert == null) {
            return Kind.SKIP;
        }
        if (wire == ColumnCodec.Wire.INT && !t.kind.equals("uint64")
                && (raw == long.class || raw == int.class || raw == short.class || raw == byte.class)) {
            return Kind.LONG;
        }
        if ((wire == ColumnCodec.Wire.FLOAT64 || wire == ColumnCodec.Wire.FLOAT32) && raw == double.class) {
            return Kind.DOUBLE;
        }
        if (wire == ColumnCodec.Wire.FLOAT32 && raw == float.class) {
            return Kind.FLOAT;
        }
        if (wire == ColumnCodec.Wire.BOOL && raw == boolean.class) {
            return Kind.BOOL;
        }
        return Kind.OBJECT;
    }

    int fieldCount() {
        return types.length;
    }

    /**
     * Reads the {@link #fieldCount} columns of {@code count} instances into {@code arrays};
     * {@code cursors}: the integer columns of {@link Kind#LONG} as {@link IntCursor}s and the
     * float and bool columns of {@link Kind#DOUBLE}, {@link Kind#FLOAT} and {@link Kind#BOOL} as
     * {@link FixedColumn}s, and the str columns of {@link #strings} as {@link StrColumn}s, for a
     * composed builder to read (then call {@link #finish}). A str column that is the last one is
     * left unread after its array header: the builder reads it from {@code in} (see
     * {@link StrColumn#last}), so the reader's position is then the column's end only once every
     * instance is built.
     */
    void decode(InBandReader in, int count, ColumnArrays arrays, boolean cursors) {
        for (int j = 0; j < types.length; j++) {
            if (cursors && kinds[j] == Kind.LONG) {
                arrays.put(j, IntCursor.of(ColumnCodec.bin(in, where[j], types[j]), count, types[j], where[j]));
            } else if (cursors && (kinds[j] == Kind.DOUBLE || kinds[j] == Kind.FLOAT)) {
                arrays.put(j, FixedColumn.floats(ColumnCodec.bin(in, where[j], types[j]), count,
                        wires[j] == ColumnCodec.Wire.FLOAT32, where[j]));
            } else if (cursors && kinds[j] == Kind.BOOL) {
                arrays.put(j, FixedColumn.bools(ColumnCodec.bin(in, where[j], types[j]), count, where[j]));
            } else if (cursors && strings[j] && j == types.length - 1) {
                readArrayHeader(in, count, j);
                arrays.put(j, StrColumn.last(in, this, j)); // read as the instances are built
            } else if (cursors && strings[j]) {
                arrays.put(j, strColumn(in, count, arrays, j));
            } else {
                decodeColumn(in, count, arrays, j);
            }
        }
    }

    /** Whether column j is read as a {@link StrColumn} by a composed builder. */
    boolean strColumn(int j) {
        return strings[j];
    }

    /** The str column j of {@code count} values as a {@link StrColumn}: its bytes when all are short ASCII strs, else its values. */
    private StrColumn strColumn(InBandReader in, int count, ColumnArrays arrays, int j) {
        readArrayHeader(in, count, j);
        java.nio.ByteBuffer run = in.readAsciiStrRun(count);
        if (run != null && run.hasArray()) {
            return StrColumn.ascii(run);
        }
        return StrColumn.of(readItems(in, count, arrays, j));
    }

    /** The checks left once every instance has read its values from the cursors {@link #decode} made. */
    static void finish(Object[] cols, int fields, int count) {
        for (int j = 0; j < fields; j++) {
            if (cols[j] instanceof IntCursor c) {
                c.finish(count);
            } else if (cols[j] instanceof StrColumn s) {
                s.finish();
            }
        }
    }

    private void decodeColumn(InBandReader in, int count, ColumnArrays arrays, int j) {
        FieldType t = types[j];
        Kind kind = kinds[j];
        switch (wires[j]) {
            case INT -> {
                long[] v = arrays.longs(j, count);
                ColumnCodec.readInts(ColumnCodec.bin(in, where[j], t), count, t, where[j], v);
                if (kind == Kind.OBJECT) {
                    Object[] o = arrays.objects(j, count);
                    boolean u64 = t.kind.equals("uint64");
                    for (int i = 0; i < count; i++) {
                        long x = v[i];
                        o[i] = convert[j].read(u64 && x < 0 ? new BigInteger(Long.toUnsignedString(x)) : (Object) x);
                    }
                }
            }
            case FLOAT64, FLOAT32 -> {
                boolean f32 = wires[j] == ColumnCodec.Wire.FLOAT32;
                ColumnCodec.Bin bin = ColumnCodec.bin(in, where[j], t);
                if (kind == Kind.FLOAT) {
                    ColumnCodec.readFloat32(bin, count, where[j], arrays.floats(j, count));
                    return;
                }
                double[] v = arrays.doubles(j, count);
                ColumnCodec.readFloats(bin, count, f32, where[j], v);
                if (kind == Kind.OBJECT) {
                    Object[] o = arrays.objects(j, count);
                    for (int i = 0; i < count; i++) {
                        o[i] = convert[j].read(v[i]);
                    }
                }
            }
            case BOOL -> {
                boolean[] v = arrays.bools(j, count);
                ColumnCodec.readBools(ColumnCodec.bin(in, where[j], t), count, where[j], v);
                if (kind == Kind.OBJECT) {
                    Object[] o = arrays.objects(j, count);
                    for (int i = 0; i < count; i++) {
                        o[i] = convert[j].read(v[i]);
                    }
                }
            }
            default -> {
                readArrayHeader(in, count, j);
                if (kind == Kind.SKIP) {
                    for (int i = 0; i < count; i++) {
                        in.readValue();
                    }
                    return;
                }
                readItems(in, count, arrays, j);
            }
        }
    }

    /** Reads the {@code count} values of array column j (after its header) into its {@code Object[]}, converted; returns it. */
    private Object[] readItems(InBandReader in, int count, ColumnArrays arrays, int j) {
        Object[] o = arrays.objects(j, count);
        boolean strs = strings[j];
        for (int i = 0; i < count; i++) {
            if (strs) {
                i += readStrings(in, o, i, count - i, j);
                if (i == count) {
                    break;
                }
            }
            o[i] = readConverted(in, j, i);
        }
        return o;
    }

    /**
     * Reads value {@code i} of str column j (see {@link #strings}) as {@link #readItems} reads it,
     * with the same checks and errors: a str as in a run of strs, any other value converted.
     */
    Object readValue(InBandReader in, int j, int i) {
        Object[] one = new Object[1];
        if (readStrings(in, one, 0, 1, j) == 1) {
            return one[0];
        }
        return readConverted(in, j, i);
    }

    /** Reads value i of column j that is not a str of a run, converted to the field's type. */
    private Object readConverted(InBandReader in, int j, int i) {
        long valueAt = in.offset();
        Object raw;
        try {
            raw = in.readValue();
        } catch (DeserializationException e) {
            throw inColumn(e, j, i);
        }
        try {
            return convert[j].read(raw);
        } catch (DeserializationException e) {
            throw e.offset() >= 0 ? e : new DeserializationException(e.getMessage(), valueAt, e);
        }
    }

    /** Reads the array header of column j, which must announce {@code count} values. */
    private void readArrayHeader(InBandReader in, int count, int j) {
        long at = in.offset();
        int n;
        try {
            n = in.readArrayHeader();
        } catch (DeserializationException e) {
            throw new DeserializationException(where[j] + " (ext 2 column): the column of a " + types[j]
                    + " field must be an array: " + e.getMessage(), at);
        }
        if (n != count) {
            throw new DeserializationException(where[j] + " (ext 2 column): an array column of " + n
                    + " values in a list of " + count + " instances", at);
        }
    }

    /**
     * Reads the str values of column j from value {@code from} on into {@code o} (the reader's
     * values as they are: see {@link #strings}) up to the first that is not a str; how many.
     */
    private int readStrings(InBandReader in, Object[] o, int from, int max, int j) {
        try {
            return in.readStrings(o, from, max);
        } catch (DeserializationException e) {
            throw inColumn(e, j, -1);
        }
    }

    /**
     * {@code e}, the failure to read a value of column j ({@code i}: its index, -1 if not known)
     * as msgpack, naming the field (a limit's failure and one that names it already as they are).
     */
    private DeserializationException inColumn(DeserializationException e, int j, int i) {
        String message = e.getMessage();
        if (e.getClass() != DeserializationException.class || message.startsWith(where[j])) {
            return e;
        }
        String offset = " (at byte offset " + e.offset() + ")";
        if (message.endsWith(offset)) {
            message = message.substring(0, message.length() - offset.length());
        }
        return new DeserializationException(where[j] + " (ext 2 column)" + (i >= 0 ? ", value " + i : "") + ": "
                + message, e.offset(), e);
    }

    /** Field j of instance i as the reader's (boxed) value, from the decoded columns. */
    Object value(Object[] cols, int j, int i) {
        return switch (kinds[j]) {
            case LONG -> convert[j].read(((long[]) cols[j])[i]);
            case DOUBLE -> convert[j].read(((double[]) cols[j])[i]);
            case FLOAT -> convert[j].read((double) ((float[]) cols[j])[i]);
            case BOOL -> convert[j].read(((boolean[]) cols[j])[i]);
            case OBJECT -> ((Object[]) cols[j])[i];
            case SKIP -> null;
        };
    }
}
