package serreg.structs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import serreg.CanonicalFormException;
import serreg.InBandWriter;
import serreg.SerializationException;
import serreg.canonical.CanonicalFloats;

/**
 * The canonical stand-in of a struct value (docs/FORMAT.md section 10.5): a {@link StructValue}
 * carrying the definition of the value's class (a carrier's own, re-encoded canonically) and each
 * field value made canonical for its declared type: {@code float64} and {@code float32} values as
 * canonical doubles (-0.0 as 0.0, every NaN the canonical NaN; a float widened first), maps sorted
 * by their keys' bytes as the field's key type writes them, values of type {@code any} and of the
 * standard types through the canonical form of section 9. Sets are written sorted by the carrier's
 * writer. The carrier serializer then writes the stand-in as ext 1, its index taken from the
 * (sorted) table in force: map keys are encoded with it, so a stand-in is made inside that table.
 */
final class CanonicalStructs {
    /** As {@link serreg.canonical.Canonical}: deeper than this is a value that contains itself. */
    private static final int MAX_NESTING = 511;
    private static final int CACHE_MAX = 1024;
    private final StructRegistry registry;
    /** A carrier's definition as read, to its canonical bytes. */
    private final Map<StructSchema.DefinitionKey, byte[]> carrierDefinitions = new ConcurrentHashMap<>();
    /** Key writers of map fields, by field and key type. */
    private final Map<String, Conversions.Writer> keyWriters = new ConcurrentHashMap<>();

    CanonicalStructs(StructRegistry registry) {
        this.registry = registry;
    }

    /** The stand-in of {@code value}, or null if it is not a struct. */
    Object standIn(Object value, int depth, BiFunction<Object, Integer, Object> canonical) {
        if (depth > MAX_NESTING) {
            throw new CanonicalFormException("value is nested more than " + MAX_NESTING + " levels deep or contains itself");
        }
        String classId;
        List<String> names;
        List<FieldType> types;
        List<Object> values;
        byte[] definition;
        if (value instanceof StructValue carrier) {
            classId = carrier.classId();
            names = carrier.fieldNames();
            types = carrier.types();
            values = carrier.values();
            definition = carrierDefinitions.get(new StructSchema.DefinitionKey(carrier.definition()));
            if (definition == null) {
                definition = StructSchema.definitionOf(registry.owner(), classId, names, types);
                if (carrierDefinitions.size() < CACHE_MAX) {
                    carrierDefinitions.put(new StructSchema.DefinitionKey(carrier.definition()), definition);
                }
            }
        } else {
            StructSchema schema = registry.schemaOf(value.getClass());
            if (schema == null) {
                return null;
            }
            classId = schema.classId;
            try {
                types = schema.fieldTypes();
                definition = schema.definition();
            } catch (IllegalArgumentException e) {
                throw new SerializationException(e.getMessage(), e);
            }
            names = schema.fieldNames();
            values = schema.valuesOf(value);
        }
        List<Object> out = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            out.add(field(types.get(i), values.get(i), classId + "." + names.get(i), depth + 1, canonical));
        }
        return new StructValue(classId, names, Collections.unmodifiableList(out), definition, types);
    }

    /** One field value made canonical for its type; a value that does not fit is left for the writer to refuse. */
    private Object field(FieldType t, Object v, String where, int depth, BiFunction<Object, Integer, Object> canonical) {
        if (v == null) {
            return null;
        }
        switch (t.kind) {
            case "float64":
                return v instanceof Double d ? (Object) CanonicalFloats.canonicalDouble(d) : v;
            case "float32":
                if (v instanceof Float f) {
                    return CanonicalFloats.canonicalDouble((double) f);
                }
                return v instanceof Double d ? (Object) CanonicalFloats.canonicalDouble(d) : v;
            case "any":
                return canonical.apply(v, depth);
            case "struct": {
                Object standIn = standIn(v, depth, canonical);
                return standIn == null ? v : standIn;
            }
            case "optional": {
                Object present = v instanceof Optional<?> o ? o.orElse(null) : v;
                return present == null ? null : field(t.args.get(0), present, where, depth, canonical);
            }
            case "list":
            case "set": {
                List<?> items = FieldValues.itemsOf(v, where, t);
                List<Object> out = new ArrayList<>(items.size());
                for (Object item : items) {
                    out.add(field(t.args.get(0), item, where, depth + 1, canonical));
                }
                return out;
            }
            case "tuple": {
                List<?> items = FieldValues.itemsOf(v, where, t);
                if (items.size() != t.args.size()) {
                    return v;
                }
                List<Object> out = new ArrayList<>(items.size());
                for (int i = 0; i < items.size(); i++) {
                    out.add(field(t.args.get(i), items.get(i), where, depth + 1, canonical));
                }
                return out;
            }
            case "map":
                return v instanceof Map<?, ?> m ? sortedMap(t, m, where, depth + 1, canonical) : v;
            default:
                break;
        }
        if (FieldType.STANDARD_ATOMS.contains(t.kind)) {
            return canonical.apply(v, depth);
        }
        return v;  // integers, bool, str, bytes, enum: one form per value already
    }

    private record Entry(byte[] key, Object keyValue, Object value) {
    }

    private Map<Object, Object> sortedMap(FieldType t, Map<?, ?> m, String where, int depth,
            BiFunction<Object, Integer, Object> canonical) {
        Conversions.Writer keys = keyWriters.get(where + " " + t);
        if (keys == null) {
            keys = FieldWriters.writer(t.args.get(0), null, where, registry);
            if (keyWriters.size() < CACHE_MAX) {
                keyWriters.put(where + " " + t, keys);
            }
        }
        List<Entry> entries = new ArrayList<>(m.size());
        for (Map.Entry<?, ?> e : m.entrySet()) {
            Object key = field(t.args.get(0), e.getKey(), where, depth, canonical);
            InBandWriter one = new InBandWriter(registry.owner());
            keys.write(one, key);
            ByteBuffer b = one.finish().inBand();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            entries.add(new Entry(bytes, key, field(t.args.get(1), e.getValue(), where, depth, canonical)));
        }
        entries.sort((a, b) -> Arrays.compareUnsigned(a.key(), b.key()));
        Map<Object, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            if (i > 0 && Arrays.equals(entries.get(i - 1).key(), entries.get(i).key())) {
                throw new CanonicalFormException(where + ": two keys of the map have the same canonical form (two NaN"
                        + " keys, say); a msgpack map cannot hold both, so merge them");
            }
            out.put(entries.get(i).keyValue(), entries.get(i).value());
        }
        return out;
    }
}
