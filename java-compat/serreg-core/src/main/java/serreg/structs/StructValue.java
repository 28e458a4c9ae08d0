package serreg.structs;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The data carrier (docs/FORMAT.md section 10.4): a struct instance whose class ID this registry
 * has not registered. It keeps the definition it was read with and its values in that order,
 * so writing it again gives the bytes it came from: a relay never needs the class.
 */
public final class StructValue {
    private final String classId;
    private final List<String> fieldNames;
    private final List<Object> values;
    private final byte[] definition;
    private final List<FieldType> types;

    StructValue(String classId, List<String> fieldNames, List<Object> values, byte[] definition, List<FieldType> types) {
        this.classId = classId;
        this.fieldNames = fieldNames;
        this.values = values;
        this.definition = definition;
        this.types = types;
    }

    /**
     * The struct's class ID.
     *
     * @return the class ID
     */
    public String classId() {
        return classId;
    }

    /**
     * The field names, in the definition's order.
     *
     * @return the names
     */
    public List<String> fieldNames() {
        return fieldNames;
    }

    /**
     * The field values, in the definition's order.
     *
     * @return the values
     */
    public List<Object> values() {
        return values;
    }

    /**
     * Field name to value, in the definition's order.
     *
     * @return a new map
     */
    public Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < fieldNames.size(); i++) {
            m.put(fieldNames.get(i), values.get(i));
        }
        return m;
    }

    /**
     * One field's value.
     *
     * @param name a field name
     * @return its value
     * @throws IllegalArgumentException if the struct has no such field
     */
    public Object get(String name) {
        int i = fieldNames.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("struct '" + classId + "' has no field '" + name + "'");
        }
        return values.get(i);
    }

    byte[] definition() {
        return definition;
    }

    List<FieldType> types() {
        return types;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StructValue s && Arrays.equals(s.definition, definition) && s.values.equals(values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(definition), values);
    }

    @Override
    public String toString() {
        return "StructValue(" + classId + ", " + fields() + ")";
    }
}
