package serreg.structs;

import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import serreg.types.NDArray;
import serreg.types.UInt16;
import serreg.types.UInt32;
import serreg.types.UInt64;
import serreg.types.UInt8;

/**
 * Java types to struct field types (docs/FORMAT.md section 10.2): {@link #typeOf} for a declared
 * field, with the raw class and type arguments of a generic Java type that the field writers and
 * readers also use.
 */
final class JavaFieldTypes {
    private JavaFieldTypes() {
    }

    private static final Map<Class<?>, String> ATOMS = Map.ofEntries(
            Map.entry(long.class, "int64"), Map.entry(Long.class, "int64"), Map.entry(int.class, "int32"),
            Map.entry(Integer.class, "int32"), Map.entry(short.class, "int16"), Map.entry(Short.class, "int16"),
            Map.entry(byte.class, "int8"), Map.entry(Byte.class, "int8"), Map.entry(UInt8.class, "uint8"),
            Map.entry(UInt16.class, "uint16"), Map.entry(UInt32.class, "uint32"), Map.entry(UInt64.class, "uint64"),
            Map.entry(double.class, "float64"), Map.entry(Double.class, "float64"), Map.entry(float.class, "float32"),
            Map.entry(Float.class, "float32"), Map.entry(boolean.class, "bool"), Map.entry(Boolean.class, "bool"),
            Map.entry(String.class, "str"), Map.entry(byte[].class, "bytes"), Map.entry(Object.class, "any"),
            Map.entry(LocalDateTime.class, "datetime"), Map.entry(OffsetDateTime.class, "datetime"),
            Map.entry(ZonedDateTime.class, "datetime"), Map.entry(LocalDate.class, "date"),
            Map.entry(LocalTime.class, "time"), Map.entry(OffsetTime.class, "time"),
            Map.entry(Duration.class, "timedelta"), Map.entry(java.math.BigDecimal.class, "decimal"),
            Map.entry(UUID.class, "uuid"), Map.entry(NDArray.class, "numpy.ndarray"));

    static Class<?> raw(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        if (t instanceof GenericArrayType g) {
            return Array.newInstance(raw(g.getGenericComponentType()), 0).getClass();
        }
        return Object.class; // a type variable or wildcard: any value
    }

    static Type arg(Type t, int i) {
        return t instanceof ParameterizedType p ? p.getActualTypeArguments()[i] : Object.class;
    }

    /** The struct field type of a Java type; IllegalArgumentException naming {@code where} if none. */
    static FieldType typeOf(Type t, String where, StructRegistry registry) {
        Class<?> c = raw(t);
        String atom = ATOMS.get(c);
        if (atom != null) {
            return FieldType.atom(atom);
        }
        if (c.getName().equals("org.apache.arrow.vector.VectorSchemaRoot")) {
            return FieldType.atom("ArrowTable");
        }
        if (c.isEnum()) {
            return FieldType.atom("enum");
        }
        if (c == Optional.class) {
            return FieldType.of("optional", typeOf(arg(t, 0), where, registry));
        }
        if (c.isArray()) {
            Type item = t instanceof GenericArrayType g ? g.getGenericComponentType() : c.getComponentType();
            return FieldType.of("list", typeOf(item, where, registry));
        }
        if (List.class.isAssignableFrom(c) || c == Collection.class) {
            return FieldType.of("list", typeOf(arg(t, 0), where, registry));
        }
        if (Set.class.isAssignableFrom(c)) {
            return FieldType.of("set", typeOf(arg(t, 0), where, registry));
        }
        if (Map.class.isAssignableFrom(c)) {
            return FieldType.of("map", typeOf(arg(t, 0), where, registry), typeOf(arg(t, 1), where, registry));
        }
        String classId = registry.classIdOf(c);
        if (classId != null) {
            return FieldType.struct(classId);
        }
        throw new IllegalArgumentException(where + ": " + c.getName() + " has no struct field type; register it"
                + " as a struct first, or declare the field Object to write it as any serreg value");
    }
}
