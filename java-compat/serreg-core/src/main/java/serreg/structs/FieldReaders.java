package serreg.structs;

import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import serreg.DeserializationException;
import serreg.types.UInt16;
import serreg.types.UInt32;
import serreg.types.UInt64;
import serreg.types.UInt8;

/**
 * The {@link Conversions.Reader} of a field, built once from the writer's field type and the
 * reader's Java type (or {@code null} for a data carrier's natural values): it checks a decoded
 * value against the writer's type and builds the reader's Java type (docs/FORMAT.md section 10.2).
 */
final class FieldReaders {
    private FieldReaders() {
    }

    static Conversions.Reader reader(FieldType w, Type javaType, String where, StructRegistry registry) {
        Class<?> target = javaType == null ? null : JavaFieldTypes.raw(javaType);
        String kind = w.kind;
        if (target == Optional.class && !kind.equals("optional")) {
            Conversions.Reader inner = reader(w, JavaFieldTypes.arg(javaType, 0), where, registry);
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
                : target.isArray() ? target.getComponentType() : JavaFieldTypes.arg(javaType, 0);
        switch (kind) {
            case "optional": {
                Conversions.Reader inner = reader(w.args.get(0), first, where, registry);
                boolean wrap = target == Optional.class;
                return raw -> raw == null ? (wrap ? Optional.empty() : null)
                        : wrap ? Optional.of(inner.read(raw)) : inner.read(raw);
            }
            case "list":
            case "set":
            case "tuple": {
                List<Conversions.Reader> items = kind.equals("tuple")
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
                Conversions.Reader keys = reader(w.args.get(0), first, where, registry);
                Conversions.Reader values = reader(w.args.get(1), natural ? null : JavaFieldTypes.arg(javaType, 1), where, registry);
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
        return new DeserializationException(where + ": the frame holds " + FieldValues.show(raw) + " in a field of type " + w);
    }
}
