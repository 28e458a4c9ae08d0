package serreg.structs;

import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import serreg.DeserializationException;
import serreg.InBandWriter;
import serreg.SerializationException;
import serreg.types.NDArray;
import serreg.types.UInt16;
import serreg.types.UInt32;
import serreg.types.UInt64;
import serreg.types.UInt8;

/**
 * Field values to and from their wire form (docs/FORMAT.md section 10.2), one converter per field,
 * built once: Java types to struct field types ({@link #typeOf}), a {@link Writer} that checks a
 * value against its field's type and writes it, and a {@link Reader} that checks a decoded value
 * against the writer's type and builds the reader's Java type. A {@code null} Java type means
 * the data carrier's natural values (Long, Double, String, List, Map ...).
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

    // ------------------------------------------------------------------------------ writing

    static Writer writer(FieldType t, Type javaType, String where, StructRegistry registry) {
        String kind = t.kind;
        long[] range = FieldType.intRange(kind);
        if (range != null) {
            return (out, v) -> {
                long bits = longOf(v, kind, where, t);
                if (kind.equals("uint64")) {
                    out.writeUnsignedLong(bits);
                } else {
                    if (bits < range[0] || bits > range[1]) {
                        throw bad(where, t, v);
                    }
                    out.writeLong(bits);
                }
            };
        }
        switch (kind) {
            case "float64":
                return (out, v) -> {
                    if (!(v instanceof Double d)) {
                        throw bad(where, t, v);
                    }
                    out.writeDouble(d);
                };
            case "float32":
                return (out, v) -> {
                    if (v instanceof Float f) {
                        out.writeDouble(f);
                    } else if (v instanceof Double d && (Double.isNaN(d) || (double) (float) (double) d == d)) {
                        out.writeDouble(d);
                    } else {
                        throw bad(where, t, v);
                    }
                };
            case "bool":
                return (out, v) -> out.writeBoolean(cast(v, Boolean.class, where, t));
            case "str":
                return (out, v) -> out.writeString(cast(v, String.class, where, t));
            case "bytes":
                return (out, v) -> out.writeBinary(cast(v, byte[].class, where, t));
            case "enum":
                return (out, v) -> {
                    if (v instanceof Enum<?> e) {
                        out.writeString(e.name());
                    } else if (v instanceof String s && javaType == null) {
                        out.writeString(s);
                    } else {
                        throw bad(where, t, v);
                    }
                };
            case "any":
                return (out, v) -> out.writeValue(v);
            case "struct":
                return (out, v) -> {
                    if (v == null || !t.classId.equals(registry.classIdOfValue(v))) {
                        throw bad(where, t, v);
                    }
                    out.writeValue(v);
                };
            default:
                break;
        }
        if (FieldType.STANDARD_ATOMS.contains(kind)) {
            return (out, v) -> {
                if (v == null) {
                    throw bad(where, t, v);
                }
                out.writeValue(v);
            };
        }
        Type first = javaType == null ? null : javaType instanceof GenericArrayType g ? g.getGenericComponentType()
                : raw(javaType).isArray() ? raw(javaType).getComponentType() : arg(javaType, 0);
        switch (kind) {
            case "optional": {
                Writer inner = writer(t.args.get(0), first, where, registry);
                return (out, v) -> {
                    Object present = v instanceof Optional<?> o ? o.orElse(null) : v;
                    if (present == null) {
                        out.writeNil();
                    } else {
                        inner.write(out, present);
                    }
                };
            }
            case "list": {
                Writer inner = writer(t.args.get(0), first, where, registry);
                FieldType itemType = t.args.get(0);
                boolean structs = itemType.kind.equals("struct");
                return (out, v) -> {
                    List<?> items = itemsOf(v, where, t);
                    if (structs && !items.isEmpty()) {
                        for (Object x : items) {
                            if (x == null || !itemType.classId.equals(registry.classIdOfValue(x))) {
                                throw bad(where, itemType, x);
                            }
                        }
                        if (ColumnWriter.write(items, out, registry)) {
                            return; // instances of one definition: ext 2 (section 10.3)
                        }
                    }
                    out.writeArrayHeader(items.size());
                    for (Object item : items) {
                        inner.write(out, item);
                    }
                };
            }
            case "set": {
                Writer inner = writer(t.args.get(0), first, where, registry);
                return (out, v) -> {
                    List<byte[]> encoded = new ArrayList<>();
                    for (Object item : itemsOf(v, where, t)) {
                        InBandWriter one = new InBandWriter(out.registry());
                        inner.write(one, item);
                        java.nio.ByteBuffer b = one.finish().inBand();
                        byte[] bytes = new byte[b.remaining()];
                        b.get(bytes);
                        encoded.add(bytes);
                    }
                    encoded.sort(Comparator.comparing(b -> b, Arrays::compareUnsigned));
                    out.writeArrayHeader(encoded.size());
                    encoded.forEach(out::writeEncoded);
                };
            }
            case "map": {
                Writer keys = writer(t.args.get(0), first, where, registry);
                Writer values = writer(t.args.get(1), javaType == null ? null : arg(javaType, 1), where, registry);
                return (out, v) -> {
                    if (!(v instanceof Map<?, ?> m)) {
                        throw bad(where, t, v);
                    }
                    out.writeMapHeader(m.size());
                    for (Map.Entry<?, ?> e : m.entrySet()) {
                        keys.write(out, e.getKey());
                        values.write(out, e.getValue());
                    }
                };
            }
            case "tuple": {
                List<Writer> items = t.args.stream().map(a -> writer(a, null, where, registry)).toList();
                return (out, v) -> {
                    List<?> values = itemsOf(v, where, t);
                    if (values.size() != items.size()) {
                        throw bad(where, t, v);
                    }
                    out.writeArrayHeader(items.size());
                    for (int i = 0; i < items.size(); i++) {
                        items.get(i).write(out, values.get(i));
                    }
                };
            }
            default:
                throw new IllegalArgumentException(where + ": no writer for field type " + t);
        }
    }

    /** An integer field value as the long (uint64: the bits) an integer column holds; refused outside {@code t}. */
    static long intValue(Object v, FieldType t, String where) {
        long bits = longOf(v, t.kind, where, t);
        if (!t.kind.equals("uint64")) {
            long[] range = FieldType.intRange(t.kind);
            if (bits < range[0] || bits > range[1]) {
                throw bad(where, t, v);
            }
        }
        return bits;
    }

    /** A {@code float64} field value (a Double). */
    static double float64Value(Object v, FieldType t, String where) {
        if (!(v instanceof Double d)) {
            throw bad(where, t, v);
        }
        return d;
    }

    /** A {@code float32} field value: a Float, or a Double that is a binary32 value (or a NaN). */
    static float float32Value(Object v, FieldType t, String where) {
        if (v instanceof Float f) {
            return f;
        }
        if (v instanceof Double d && (Double.isNaN(d) || (double) (float) (double) d == d)) {
            return (float) (double) d;
        }
        throw bad(where, t, v);
    }

    /** A {@code bool} field value. */
    static boolean boolValue(Object v, FieldType t, String where) {
        return cast(v, Boolean.class, where, t);
    }

    private static long longOf(Object v, String kind, String where, FieldType t) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long l = ((Number) v).longValue();
            if (kind.equals("uint64") && l < 0) {
                throw bad(where, t, v);
            }
            return l;
        }
        if (v instanceof UInt8 u) {
            return u.value();
        }
        if (v instanceof UInt16 u) {
            return u.value();
        }
        if (v instanceof UInt32 u) {
            return u.value();
        }
        if (v instanceof UInt64 u && kind.equals("uint64")) {
            return u.bits();
        }
        if (v instanceof BigInteger b && kind.equals("uint64") && b.signum() >= 0 && b.bitLength() <= 64) {
            return b.longValue();
        }
        throw bad(where, t, v);
    }

    static List<?> itemsOf(Object v, String where, FieldType t) {
        if (v instanceof List<?> l) {
            return l;
        }
        if (v instanceof Collection<?> c) {
            return new ArrayList<>(c);
        }
        if (v instanceof serreg.types.Tuple tuple) {
            return tuple.items();
        }
        if (v instanceof serreg.types.FrozenSet f) {
            return new ArrayList<>(f.items());
        }
        if (v != null && v.getClass().isArray()) {
            int n = Array.getLength(v);
            List<Object> items = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                items.add(Array.get(v, i));
            }
            return items;
        }
        throw bad(where, t, v);
    }

    private static <T> T cast(Object v, Class<T> c, String where, FieldType t) {
        if (!c.isInstance(v)) {
            throw bad(where, t, v);
        }
        return c.cast(v);
    }

    private static SerializationException bad(String where, FieldType t, Object v) {
        return new SerializationException(where + ": " + show(v) + " does not fit the field's type " + t);
    }

    static String show(Object v) {
        String s = v instanceof byte[] b ? "byte[" + b.length + "]" : String.valueOf(v);
        return (v == null ? "null" : v.getClass().getSimpleName() + " " + (s.length() > 60 ? s.substring(0, 60) + "..." : s));
    }

    // ------------------------------------------------------------------------------ reading

    static Reader reader(FieldType w, Type javaType, String where, StructRegistry registry) {
        Class<?> target = javaType == null ? null : raw(javaType);
        String kind = w.kind;
        if (target == Optional.class && !kind.equals("optional")) {
            Reader inner = reader(w, arg(javaType, 0), where, registry);
            return raw -> Optional.of(inner.read(raw));
        }
        long[] range = FieldType.intRange(kind);
        if (range != null) {
            return raw -> {
                long v;
                if (raw instanceof Long l) {
                    v = l;
                    boolean ok = kind.equals("uint64") ? v >= 0 : v >= range[0] && v <= range[1];
                    if (!ok) {
                        throw badRead(where, w, raw);
                    }
                } else if (raw instanceof BigInteger b && kind.equals("uint64")) {
                    v = b.longValue();
                } else {
                    throw badRead(where, w, raw);
                }
                return intAs(v, raw, target);
            };
        }
        switch (kind) {
            case "float64":
            case "float32":
                return raw -> {
                    if (!(raw instanceof Double d)) {
                        throw badRead(where, w, raw);
                    }
                    return target == float.class || target == Float.class ? (Object) (float) (double) d : d;
                };
            case "bool":
                return raw -> check(raw, Boolean.class, where, w);
            case "str":
                return raw -> check(raw, String.class, where, w);
            case "bytes":
                return raw -> check(raw, byte[].class, where, w);
            case "enum":
                return raw -> {
                    String name = check(raw, String.class, where, w);
                    if (target == null || !target.isEnum()) {
                        return name;
                    }
                    for (Object constant : target.getEnumConstants()) {
                        if (((Enum<?>) constant).name().equals(name)) {
                            return constant;
                        }
                    }
                    throw new DeserializationException(where + ": " + target.getSimpleName() + " has no constant named '"
                            + name + "'");
                };
            case "any":
                return raw -> raw;
            case "struct":
                return raw -> {
                    if (raw == null || !w.classId.equals(registry.classIdOfValue(raw))) {
                        throw badRead(where, w, raw);
                    }
                    return raw;
                };
            default:
                break;
        }
        if (FieldType.STANDARD_ATOMS.contains(kind)) {
            return raw -> {
                String seen = raw == null ? null : registry.standardAtomOf(raw);
                if (!kind.equals(seen)) {
                    throw badRead(where, w, raw);
                }
                return raw;
            };
        }
        boolean natural = target == null || target == Object.class;
        Type first = natural ? null : javaType instanceof GenericArrayType g ? g.getGenericComponentType()
                : target.isArray() ? target.getComponentType() : arg(javaType, 0);
        switch (kind) {
            case "optional": {
                Reader inner = reader(w.args.get(0), first, where, registry);
                boolean wrap = target == Optional.class;
                return raw -> raw == null ? (wrap ? Optional.empty() : null)
                        : wrap ? Optional.of(inner.read(raw)) : inner.read(raw);
            }
            case "list":
            case "set":
            case "tuple": {
                List<Reader> items = kind.equals("tuple")
                        ? w.args.stream().map(a -> reader(a, null, where, registry)).toList()
                        : List.of(reader(w.args.get(0), first, where, registry));
                boolean asSet = natural ? kind.equals("set") : Set.class.isAssignableFrom(target);
                Class<?> arrayOf = !natural && target.isArray() ? target.getComponentType() : null;
                return raw -> {
                    if (!(raw instanceof List<?> list) || kind.equals("tuple") && list.size() != items.size()) {
                        throw badRead(where, w, raw);
                    }
                    Collection<Object> built = asSet ? new LinkedHashSet<>() : new ArrayList<>(list.size());
                    for (int i = 0; i < list.size(); i++) {
                        built.add(items.get(kind.equals("tuple") ? i : 0).read(list.get(i)));
                    }
                    if (arrayOf != null) {
                        Object array = Array.newInstance(arrayOf, built.size());
                        int i = 0;
                        for (Object item : built) {
                            Array.set(array, i++, item);
                        }
                        return array;
                    }
                    return built;
                };
            }
            case "map": {
                Reader keys = reader(w.args.get(0), first, where, registry);
                Reader values = reader(w.args.get(1), natural ? null : arg(javaType, 1), where, registry);
                return raw -> {
                    if (!(raw instanceof Map<?, ?> m)) {
                        throw badRead(where, w, raw);
                    }
                    Map<Object, Object> built = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : m.entrySet()) {
                        built.put(keys.read(e.getKey()), values.read(e.getValue()));
                    }
                    return built;
                };
            }
            default:
                throw new DeserializationException(where + ": no reader for field type " + w);
        }
    }

    private static Object intAs(long v, Object raw, Class<?> target) {
        if (target == null || target == Object.class || target == long.class || target == Long.class) {
            return raw instanceof Long || target == null || target == Object.class ? raw : (Object) v; // no new box
        }
        if (target == int.class || target == Integer.class) {
            return (int) v;
        }
        if (target == short.class || target == Short.class) {
            return (short) v;
        }
        if (target == byte.class || target == Byte.class) {
            return (byte) v;
        }
        if (target == UInt8.class) {
            return new UInt8((short) v);
        }
        if (target == UInt16.class) {
            return new UInt16((int) v);
        }
        if (target == UInt32.class) {
            return new UInt32(v);
        }
        if (target == UInt64.class) {
            return new UInt64(v);
        }
        return v;
    }

    private static <T> T check(Object raw, Class<T> c, String where, FieldType w) {
        if (!c.isInstance(raw)) {
            throw badRead(where, w, raw);
        }
        return c.cast(raw);
    }

    private static DeserializationException badRead(String where, FieldType w, Object raw) {
        return new DeserializationException(where + ": the frame holds " + show(raw) + " in a field of type " + w);
    }
}
