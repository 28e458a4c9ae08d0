package serreg.structs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import serreg.InBandReader;

/**
 * Reads the instances of one definition whose class ID is not registered into data carriers
 * ({@link StructValue}, docs/FORMAT.md section 10.4): one at a time (ext 1) or a list by columns
 * (ext 2), each value as the carrier holds it (Long, Double, String, List, Map ...).
 */
final class CarrierReader implements DecodeScope.InstanceReader, DecodeScope.ListReader {
    private final String classId;
    private final List<String> names;
    private final List<FieldType> types;
    private final byte[] definition;
    private final Conversions.Reader[] readers;
    private final ColumnLayout columns;

    CarrierReader(String classId, List<String> names, List<FieldType> types, byte[] definition, StructRegistry registry) {
        this.classId = classId;
        this.names = List.copyOf(names);
        this.types = List.copyOf(types);
        this.definition = definition;
        int n = types.size();
        this.readers = new Conversions.Reader[n];
        String[] where = new String[n];
        for (int i = 0; i < n; i++) {
            where[i] = classId + "." + names.get(i);
            readers[i] = FieldReaders.reader(types.get(i), null, where[i], registry);
        }
        this.columns = new ColumnLayout(types.toArray(new FieldType[0]), where, new Class<?>[n], readers);
    }

    @Override
    public Object read(InBandReader in) {
        List<Object> values = new ArrayList<>(readers.length);
        for (Conversions.Reader r : readers) {
            values.add(r.read(in.readValue()));
        }
        return carrier(values);
    }

    @Override
    public List<Object> read(InBandReader in, int count) {
        ColumnArrays arrays = ColumnArrays.take(readers.length);
        try {
            columns.decode(in, count, arrays, false);
            Object[] cols = arrays.columns();
            List<Object> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                List<Object> values = new ArrayList<>(readers.length);
                for (int j = 0; j < readers.length; j++) {
                    values.add(columns.value(cols, j, i));
                }
                out.add(carrier(values));
            }
            return out;
        } finally {
            arrays.giveBack();
        }
    }

    private StructValue carrier(List<Object> values) {
        return new StructValue(classId, names, Collections.unmodifiableList(values), definition, types);
    }
}
