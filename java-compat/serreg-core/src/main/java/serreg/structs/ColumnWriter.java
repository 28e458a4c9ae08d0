package serreg.structs;

import java.util.Arrays;
import java.util.List;
import serreg.InBandWriter;
import serreg.SerializationException;
import serreg.SerregException;

/**
 * Writes a list of struct instances of one definition as ext 2 (docs/FORMAT.md section 10.3):
 * {@code [index, count, column_0, ...]}. A list of one registered class has its fields copied
 * into primitive columns by the class's {@link Extractor} (a loop compiled per class, the
 * accessors constants in it), then packed; a list holding carriers (a relay, the canonical
 * form's stand-ins) goes field value by field value through the definition's types. Anything
 * else (an empty list, one mixing classes, definitions, or instances with carriers, or holding
 * another value, a definition without fields) stays the msgpack array it always was: {@link #write} says so by returning false.
 */
final class ColumnWriter {
    /** The msgpack ext type of a list of instances by columns. */
    static final int EXT_TYPE = 2;

    /** Copies the fields of {@code count} instances into columns (index = field). */
    interface Extractor {
        void extract(List<?> items, int count, Object[] cols);
    }

    /**
     * Walks {@code count} instances once, putting their fields where {@code sink} takes them, and
     * stops before the first that is not of class {@code cls} (null included): how many it walked.
     */
    interface DirectExtractor {
        int extract(List<?> items, int count, Class<?> cls, ColumnSink sink);
    }

    private ColumnWriter() {
    }

    /** Writes {@code items} as ext 2 when the rule applies; false (nothing written) when it stays an array. */
    static boolean write(List<?> items, InBandWriter out, StructRegistry registry) {
        int count = items.size();
        if (count == 0) {
            return false;
        }
        if (!(items instanceof java.util.RandomAccess)) {
            items = new java.util.ArrayList<>(items); // read by index below
        }
        Object first = items.get(0);
        StructSchema schema = first instanceof StructValue || first == null ? null : registry.schemaOf(first.getClass());
        byte[] definition = definitionOf(first, schema);
        if (definition == null) {
            return false;
        }
        List<FieldType> carrierTypes = first instanceof StructValue c ? c.types() : null;
        int fields = schema != null ? schema.fieldCount() : carrierTypes.size();
        if (fields == 0) {
            return false;
        }
        // One registered class's instances, or carriers of one definition (docs/FORMAT.md 10.3): a
        // carrier beside instances of its class stays an array of ext 1 (the canonical form's
        // stand-ins are all carriers, so there such a list is ext 2).
        boolean oneClass = schema != null;
        Class<?> cls = first.getClass();
        ForClass columns = oneClass ? schema.columns() : null;
        // A class whose walk writes columns on the way checks each instance's class in that walk.
        for (int i = 1; i < (columns != null && columns.direct != null ? 0 : count); i++) {
            Object item = items.get(i);
            if (oneClass) {
                if (item == null || item.getClass() != cls) {
                    return false;
                }
            } else if (!(item instanceof StructValue c) || c.definition() != definition
                    && !Arrays.equals(c.definition(), definition)) {
                return false;
            }
        }
        int headerAt = out.beginExtension();
        out.writeArrayHeader(2 + fields).writeLong(StructFrames.indexOf(definition)).writeLong(count);
        if (oneClass) {
            if (!columns.write(items, count, cls, out)) {
                out.abandonExtension(headerAt); // an instance of another class: the list stays an array
                return false;
            }
        } else {
            StructValue carrier = (StructValue) first;
            registry.carrierColumns(definition, carrier.classId(), carrier.fieldNames(), carrierTypes)
                    .write(items, count, out);
        }
        out.endExtension(headerAt, EXT_TYPE);
        return true;
    }

    /** The definition an instance is written with, or null when it is not a struct instance. */
    private static byte[] definitionOf(Object item, StructSchema schema) {
        if (item instanceof StructValue c) {
            return c.definition();
        }
        if (schema == null) {
            return null;
        }
        try {
            return schema.definition();
        } catch (IllegalArgumentException e) {
            throw new SerializationException(e.getMessage(), e);
        }
    }

    /** The columns of one registered class: primitive fields packed from primitive arrays, the rest by type. */
    static final class ForClass {
        private final String classId;
        private final ColumnLayout.Kind[] kinds;
        private final FieldType[] types;
        private final String[] where;
        private final Conversions.Writer[] writers;
        /** Copies the fields into columns (null when {@link #direct} is not). */
        private final Extractor extractor;
        /** The walk of {@link #writeDirect}, or null when no column is written on the way. */
        private final DirectExtractor direct;
        /** How many leading columns are fixed-width ({@link #fixedWidth}); whether the next is a {@code str} one. */
        private final int fixed;
        private final boolean str;

        ForClass(String classId, ColumnLayout.Kind[] kinds, FieldType[] types, String[] where, Conversions.Writer[] writers,
                Extractor extractor, DirectExtractor direct) {
            this.classId = classId;
            this.kinds = kinds;
            this.types = types;
            this.where = where;
            this.writers = writers;
            this.extractor = extractor;
            this.direct = direct;
            this.fixed = fixedColumns(kinds, types);
            this.str = streamsStr(kinds, types, fixed);
        }

        /**
         * The bytes a value of a fixed-width column takes ({@code float64}, {@code float32} or
         * {@code bool} of a field of that Java primitive), or 0.
         */
        static int fixedWidth(ColumnLayout.Kind kind, FieldType t) {
            ColumnCodec.Wire wire = ColumnCodec.wireOf(t);
            return kind == ColumnLayout.Kind.DOUBLE && wire == ColumnCodec.Wire.FLOAT64 ? 8
                    : kind == ColumnLayout.Kind.FLOAT && wire == ColumnCodec.Wire.FLOAT32 ? 4
                    : kind == ColumnLayout.Kind.BOOL && wire == ColumnCodec.Wire.BOOL ? 1 : 0;
        }

        /** How many columns from the first are fixed-width. */
        static int fixedColumns(ColumnLayout.Kind[] kinds, FieldType[] types) {
            int k = 0;
            while (k < kinds.length && fixedWidth(kinds[k], types[k]) > 0) {
                k++;
            }
            return k;
        }

        /** Whether column {@code fixed} (the first after the fixed-width ones) is a {@code str} column written on the way. */
        static boolean streamsStr(ColumnLayout.Kind[] kinds, FieldType[] types, int fixed) {
            return fixed < kinds.length && kinds[fixed] == ColumnLayout.Kind.OBJECT && types[fixed].kind.equals("str");
        }

        /** Whether a class of these columns writes some on the way ({@link #writeDirect}). */
        static boolean direct(ColumnLayout.Kind[] kinds, FieldType[] types) {
            int f = fixedColumns(kinds, types);
            return f > 0 || streamsStr(kinds, types, f);
        }

        /**
         * Writes the columns of {@code count} instances; false when the walk of {@link #writeDirect}
         * met one that is not of class {@code cls} (the caller takes back what was written).
         */
        boolean write(List<?> items, int count, Class<?> cls, InBandWriter out) {
            if (direct != null) {
                return writeDirect(items, count, cls, out);
            }
            ColumnArrays arrays = ColumnArrays.take(kinds.length);
            try {
                Object[] cols = sizedColumns(arrays, 0, count);
                try {
                    extractor.extract(items, count, cols);
                } catch (SerregException e) {
                    throw e;
                } catch (RuntimeException e) {
                    throw fieldsFailed(e);
                }
                writeColumns(out, cols, count, 0);
            } finally {
                arrays.giveBack();
            }
            return true;
        }

        /** Writes columns {@code from ..} of {@code cols}, filled by an extractor. */
        private void writeColumns(InBandWriter out, Object[] cols, int count, int from) {
            for (int k = from; k < kinds.length; k++) {
                switch (kinds[k]) {
                    case LONG -> ColumnCodec.writeInts(out, (long[]) cols[k], count, false);
                    case DOUBLE -> ColumnCodec.writeDoubles(out, (double[]) cols[k], count);
                    case FLOAT -> ColumnCodec.writeFloats(out, (float[]) cols[k], count);
                    case BOOL -> ColumnCodec.writeBools(out, (boolean[]) cols[k], count);
                    default -> writeValues(out, types[k], where[k], (Object[]) cols[k], count, writers[k]);
                }
            }
        }

        /** The arrays of columns {@code from} to the last sized for {@code count} instances, as the extractors fill them. */
        private Object[] sizedColumns(ColumnArrays arrays, int from, int count) {
            for (int k = from; k < kinds.length; k++) {
                switch (kinds[k]) {
                    case LONG -> arrays.longs(k, count);
                    case DOUBLE -> arrays.doubles(k, count);
                    case FLOAT -> arrays.floats(k, count);
                    case BOOL -> arrays.bools(k, count);
                    default -> arrays.objects(k, count);
                }
            }
            return arrays.columns();
        }

        /** What a field getter's failure while a list's instances were read becomes. */
        private SerializationException fieldsFailed(RuntimeException e) {
            return new SerializationException("struct '" + classId + "': reading the fields of a list's"
                    + " instances failed: " + e, e);
        }

        /**
         * The same bytes as {@link #write}'s other path, the instances walked once: the
         * fixed-width columns' bins reserved first and filled in place, the {@code str} column
         * after them written value by value as the walk gives them (its header first), the
         * remaining columns gathered into arrays and written after the walk. No column array is
         * made for a column written on the way, and none is read back. Each instance's class is
         * checked as the walk reaches it (not in a walk of its own first): false at the first of
         * another class, the caller then takes back the list's extension.
         */
        private boolean writeDirect(List<?> items, int count, Class<?> cls, InBandWriter out) {
            int[] at = new int[fixed];
            for (int k = 0; k < fixed; k++) {
                at[k] = out.reserveBinary(Math.multiplyExact(fixedWidth(kinds[k], types[k]), count));
            }
            int rest = fixed;
            if (str) {
                out.writeArrayHeader(count);
                rest++;
            }
            ColumnArrays arrays = rest < kinds.length ? ColumnArrays.take(kinds.length) : null;
            try {
                Object[] cols = null;
                if (arrays != null) {
                    cols = sizedColumns(arrays, rest, count);
                }
                try {
                    if (direct.extract(items, count, cls, new ColumnSink(out, at, cols, where, types)) < count) {
                        return false;
                    }
                } catch (SerregException e) {
                    throw e;
                } catch (RuntimeException e) {
                    throw fieldsFailed(e);
                }
                if (cols != null) {
                    writeColumns(out, cols, count, rest);
                }
                return true;
            } finally {
                if (arrays != null) {
                    arrays.giveBack();
                }
            }
        }
    }

    /** The columns of carriers of one definition, written value by value. */
    static final class ByValue {
        private final FieldType[] types;
        private final String[] where;
        private final Conversions.Writer[] writers;

        ByValue(FieldType[] types, String[] where, Conversions.Writer[] writers) {
            this.types = types;
            this.where = where;
            this.writers = writers;
        }

        void write(List<?> items, int count, InBandWriter out) {
            int n = types.length;
            ColumnArrays arrays = ColumnArrays.take(n);
            try {
                Object[][] cols = new Object[n][];
                for (int k = 0; k < n; k++) {
                    cols[k] = arrays.objects(k, count);
                }
                for (int i = 0; i < count; i++) {
                    List<Object> values = ((StructValue) items.get(i)).values();
                    for (int k = 0; k < n; k++) {
                        cols[k][i] = values.get(k);
                    }
                }
                for (int k = 0; k < n; k++) {
                    writeValues(out, types[k], where[k], cols[k], count, writers[k]);
                }
            } finally {
                arrays.giveBack();
            }
        }
    }

    /** Writes a column of (boxed) values of type {@code t}, each checked against it. */
    static void writeValues(InBandWriter out, FieldType t, String where, Object[] values, int count,
            Conversions.Writer writer) {
        switch (ColumnCodec.wireOf(t)) {
            case INT -> {
                long[] v = new long[count];
                for (int i = 0; i < count; i++) {
                    v[i] = FieldValues.intValue(values[i], t, where);
                }
                ColumnCodec.writeInts(out, v, count, t.kind.startsWith("u"));
            }
            case FLOAT64 -> {
                double[] v = new double[count];
                for (int i = 0; i < count; i++) {
                    v[i] = FieldValues.float64Value(values[i], t, where);
                }
                ColumnCodec.writeDoubles(out, v, count);
            }
            case FLOAT32 -> {
                float[] v = new float[count];
                for (int i = 0; i < count; i++) {
                    v[i] = FieldValues.float32Value(values[i], t, where);
                }
                ColumnCodec.writeFloats(out, v, count);
            }
            case BOOL -> {
                boolean[] v = new boolean[count];
                for (int i = 0; i < count; i++) {
                    v[i] = FieldValues.boolValue(values[i], t, where);
                }
                ColumnCodec.writeBools(out, v, count);
            }
            default -> {
                out.writeArrayHeader(count);
                if (t.kind.equals("str")) {
                    writeStrings(out, t, where, values, count);
                    return;
                }
                for (int i = 0; i < count; i++) {
                    writer.write(out, values[i]);
                }
            }
        }
    }

    /**
     * The items of a {@code str} column, in one loop (what the field's writer does per value: each
     * must be a String, written as a msgpack str).
     */
    private static void writeStrings(InBandWriter out, FieldType t, String where, Object[] values, int count) {
        int written = out.writeStrings(values, 0, count);
        if (written < count) {
            throw FieldValues.bad(where, t, values[written]);
        }
    }
}
