package serreg.structs;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import serreg.InBandWriter;

/**
 * The {@link Conversions.Writer} of a field, built once from its field type (and its declared
 * Java type, or {@code null} for a data carrier's natural values): it checks a value against the
 * type and writes it (docs/FORMAT.md section 10.2; a list of instances of one definition as ext 2,
 * section 10.3).
 */
final class FieldWriters {
    private FieldWriters() {
    }

    static Conversions.Writer writer(FieldType t, Type javaType, String where, StructRegistry registry) {
        String kind = t.kind;
        long[] range = FieldType.intRange(kind);
        if (range != null) {
            return (out, v) -> {
                long bits = FieldValues.longOf(v, kind, where, t);
                if (kind.equals("uint64")) {
                    out.writeUnsignedLong(bits);
                } else {
                    if (bits < range[0] || bits > range[1]) {
                        throw FieldValues.bad(where, t, v);
                    }
                    out.writeLong(bits);
                }
            };
        }
        switch (kind) {
            case "float64":
                return (out, v) -> {
                    if (!(v instanceof Double d)) {
                        throw FieldValues.bad(where, t, v);
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
                        throw FieldValues.bad(where, t, v);
                    }
                };
            case "bool":
                return (out, v) -> out.writeBoolean(FieldValues.cast(v, Boolean.class, where, t));
            case "str":
                return (out, v) -> out.writeString(FieldValues.cast(v, String.class, where, t));
            case "bytes":
                return (out, v) -> out.writeBinary(FieldValues.cast(v, byte[].class, where, t));
            case "enum":
                return (out, v) -> {
                    if (v instanceof Enum<?> e) {
                        out.writeString(e.name());
                    } else if (v instanceof String s && javaType == null) {
                        out.writeString(s);
                    } else {
                        throw FieldValues.bad(where, t, v);
                    }
                };
            case "any":
                return (out, v) -> out.writeValue(v);
            case "struct":
                return (out, v) -> {
                    if (v == null || !t.classId.equals(registry.classIdOfValue(v))) {
                        throw FieldValues.bad(where, t, v);
                    }
                    out.writeValue(v);
                };
            default:
                break;
        }
        if (FieldType.STANDARD_ATOMS.contains(kind)) {
            return (out, v) -> {
                if (v == null) {
                    throw FieldValues.bad(where, t, v);
                }
                out.writeValue(v);
            };
        }
        Type first = javaType == null ? null : javaType instanceof GenericArrayType g ? g.getGenericComponentType()
                : JavaFieldTypes.raw(javaType).isArray() ? JavaFieldTypes.raw(javaType).getComponentType() : JavaFieldTypes.arg(javaType, 0);
        switch (kind) {
            case "optional": {
                Conversions.Writer inner = writer(t.args.get(0), first, where, registry);
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
                Conversions.Writer inner = writer(t.args.get(0), first, where, registry);
                FieldType itemType = t.args.get(0);
                boolean structs = itemType.kind.equals("struct");
                return (out, v) -> {
                    List<?> items = FieldValues.itemsOf(v, where, t);
                    if (structs && !items.isEmpty()) {
                        for (Object x : items) {
                            if (x == null || !itemType.classId.equals(registry.classIdOfValue(x))) {
                                throw FieldValues.bad(where, itemType, x);
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
                Conversions.Writer inner = writer(t.args.get(0), first, where, registry);
                return (out, v) -> {
                    List<byte[]> encoded = new ArrayList<>();
                    for (Object item : FieldValues.itemsOf(v, where, t)) {
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
                Conversions.Writer keys = writer(t.args.get(0), first, where, registry);
                Conversions.Writer values = writer(t.args.get(1), javaType == null ? null : JavaFieldTypes.arg(javaType, 1), where, registry);
                return (out, v) -> {
                    if (!(v instanceof Map<?, ?> m)) {
                        throw FieldValues.bad(where, t, v);
                    }
                    out.writeMapHeader(m.size());
                    for (Map.Entry<?, ?> e : m.entrySet()) {
                        keys.write(out, e.getKey());
                        values.write(out, e.getValue());
                    }
                };
            }
            case "tuple": {
                List<Conversions.Writer> items = t.args.stream().map(a -> writer(a, null, where, registry)).toList();
                return (out, v) -> {
                    List<?> values = FieldValues.itemsOf(v, where, t);
                    if (values.size() != items.size()) {
                        throw FieldValues.bad(where, t, v);
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
}
