package serreg.structs;

import java.util.List;
import serreg.DeserializationException;
import serreg.InBandReader;

/**
 * The reading side of the struct table (docs/FORMAT.md section 10.1): an ext 1 instance or an
 * ext 2 list of instances read through the table the {@code serreg.structs} serializer pushed
 * on this thread (see {@link StructFrames#push}), its header checked against the table (the
 * definition index, the field or column count, the instance count against the bytes left)
 * before the definition's reader is called. A field's refusal that does not say where it is
 * gets the offset of its instance or list. The twin of {@code DecodeScope} and
 * {@code read_instance} in the Python {@code serreg.structs.scope}; the public entries are
 * {@link StructFrames#readInstance} and {@link StructFrames#readInstances}.
 */
final class DecodeScope {
    private DecodeScope() {
    }

    /** Reads one instance's field values (the array header and index already read and checked). */
    interface InstanceReader {
        Object read(InBandReader in);
    }

    /** Reads the columns of an ext 2 list of {@code count} instances (after its index and count, both checked). */
    interface ListReader {
        List<Object> read(InBandReader in, int count);
    }

    /** One definition of a table being read ({@code hash}: its class ID's ClassIDHash, u64 little-endian). */
    record Entry(String classId, long hash, int fieldCount, InstanceReader reader, ListReader lists) {
    }

    /**
     * Reads one ext 1 payload (an instance array) from {@code in}, through the enclosing table.
     *
     * @param in a reader bounded to the payload
     * @return the instance: of the registered class, or a {@link StructValue}
     */
    static Object readInstance(InBandReader in) {
        Entry[] table = ThreadTables.current().reading;
        long at = in.offset();
        if (table == null) {
            throw new DeserializationException("a struct instance (msgpack ext 1) outside any struct table"
                    + " (serreg.structs)", at);
        }
        int n = in.readArrayHeader();
        if (n < 1) {
            throw new DeserializationException("a struct instance must be an array [definition index, field values...]", at);
        }
        long index = in.readLong();
        if (index < 0 || index >= table.length) {
            throw new DeserializationException("struct instance names definition " + index + ", but the table holds "
                    + table.length, at);
        }
        Entry entry = table[(int) index];
        if (n != entry.fieldCount() + 1) {
            throw new DeserializationException("struct '" + entry.classId() + "': an instance array holds " + (n - 1)
                    + " field value(s), its definition declares " + entry.fieldCount(), at);
        }
        try {
            return entry.reader().read(in);
        } catch (DeserializationException e) {
            throw located(e, at);
        }
    }

    /**
     * A field's refusal that names the field but not where it is (a value read, then found not to
     * fit its field's type) gets the offset of the instance or list of instances it is in.
     */
    private static DeserializationException located(DeserializationException e, long at) {
        if (e.offset() >= 0 || e.getClass() != DeserializationException.class) {
            return e;
        }
        return new DeserializationException(e.getMessage(), at, e.getCause() != null ? e.getCause() : e);
    }

    /**
     * Reads one ext 2 payload (docs/FORMAT.md section 10.3) from {@code in}, through the
     * enclosing table: {@code [index, count, column_0, ...]}, every header checked before the
     * columns are read ({@code count} against the bytes left: each column holds at least a byte
     * per instance).
     *
     * @param in a reader bounded to the payload
     * @return the instances
     */
    static List<Object> readInstances(InBandReader in) {
        Entry[] table = ThreadTables.current().reading;
        long at = in.offset();
        if (table == null) {
            throw new DeserializationException("a list of struct instances (msgpack ext 2) outside any struct table"
                    + " (serreg.structs)", at);
        }
        int n = in.readArrayHeader();
        if (n < 2) {
            throw new DeserializationException("a list of struct instances (ext 2) must be an array [definition index,"
                    + " count, columns...], found an array of " + n, at);
        }
        long index = in.readLong();
        if (index < 0 || index >= table.length) {
            throw new DeserializationException("a list of struct instances (ext 2) names definition " + index
                    + ", but the table holds " + table.length, at);
        }
        Entry entry = table[(int) index];
        if (entry.fieldCount() == 0) {
            throw new DeserializationException("struct '" + entry.classId() + "': a list of instances (ext 2) of a"
                    + " definition without fields (such a list is an array)", at);
        }
        if (n != entry.fieldCount() + 2) {
            throw new DeserializationException("struct '" + entry.classId() + "': a list of instances (ext 2) holds "
                    + (n - 2) + " column(s), its definition declares " + entry.fieldCount() + " field(s)", at);
        }
        long countAt = in.offset();
        long count = in.readLong();
        if (count < 1) {
            throw new DeserializationException("struct '" + entry.classId() + "': a list of instances (ext 2) of "
                    + count + " instances (an empty list is an array)", countAt);
        }
        if (count > in.remaining()) {
            throw new DeserializationException("struct '" + entry.classId() + "': a list of instances (ext 2) declares "
                    + count + " instances but only " + in.remaining() + " bytes of columns follow", countAt);
        }
        try {
            return entry.lists().read(in, (int) count);
        } catch (DeserializationException e) {
            throw located(e, at);
        }
    }
}
