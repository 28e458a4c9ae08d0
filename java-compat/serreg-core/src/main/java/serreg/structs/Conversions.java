package serreg.structs;

import serreg.InBandWriter;

/**
 * Field values to and from their wire form (docs/FORMAT.md section 10.2), one converter per field,
 * built once: Java types to struct field types ({@link JavaFieldTypes#typeOf}), a {@link Writer}
 * that checks a value against its field's type and writes it ({@link FieldWriters#writer}, the
 * checked values in {@link FieldValues}), and a {@link Reader} that checks a decoded value against
 * the writer's type and builds the reader's Java type ({@link FieldReaders#reader}). A {@code null}
 * Java type means the data carrier's natural values (Long, Double, String, List, Map ...).
 */
final class Conversions {
    private Conversions() {
    }

    /** Writes one field value. */
    interface Writer {
        void write(InBandWriter out, Object value);
    }

    /** Builds one field value from what the reader decoded. */
    interface Reader {
        Object read(Object raw);
    }
}
