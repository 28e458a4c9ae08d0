package serreg.structs;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.RegistrationException;
import serreg.SerializationException;
import serreg.SerializerRegistry;
import serreg.StructSupport;
import serreg.wire.ClassIdHash;

/**
 * The struct classes of one {@link SerializerRegistry}, by class ID and by class, and the reading
 * of a frame's struct table: each definition gets the reader of its registered class (fields
 * matched by name) or of the data carrier ({@link StructValue}). Thread-safe.
 */
public final class StructRegistry implements StructSupport {
    private final SerializerRegistry owner;
    private final Map<String, StructSchema> byId = new ConcurrentHashMap<>();
    private final Map<Class<?>, StructSchema> byClass = new ConcurrentHashMap<>();
    private final Map<StructSchema.DefinitionKey, CarrierReader> carrierReaders = new ConcurrentHashMap<>();
    /** Column writers of carriers' definitions (ext 2), by the definition's bytes. */
    private final Map<StructSchema.DefinitionKey, ColumnWriter.ByValue> carrierColumns = new ConcurrentHashMap<>();
    /** Definitions already met in frames, by their bytes (parsed and checked once). */
    private final Map<StructSchema.DefinitionKey, Parsed> parsed = new ConcurrentHashMap<>();
    private static final int CACHE_MAX = 1024;
    /** The canonical form's struct stand-ins (made on first use). */
    private volatile CanonicalStructs canonicalStructs;

    /**
     * The struct registry of {@code owner} (made by the registry itself).
     *
     * @param owner the registry
     */
    public StructRegistry(SerializerRegistry owner) {
        this.owner = owner;
    }

    SerializerRegistry owner() {
        return owner;
    }

    /**
     * Registers {@code cls} as the struct {@code classId} (see
     * {@link SerializerRegistry#registerStruct}).
     *
     * @param cls the class
     * @param classId its class ID
     */
    @Override
    public synchronized void register(Class<?> cls, String classId) {
        if (classId == null || classId.isEmpty()) {
            throw new RegistrationException("a class ID is a non-empty string");
        }
        StructSchema existing = byId.get(classId);
        if (existing != null && existing.cls != cls) {
            throw new RegistrationException("class ID '" + classId + "' is already the struct " + existing.cls.getName());
        }
        StructSchema schema = new StructSchema(cls, classId, this);
        owner.registerSerializer(classId, castClass(cls), new StructSerializer(owner, schema));
        byId.put(classId, schema);
        byClass.put(cls, schema);
        generation++;
        try {
            schema.compile();
        } catch (IllegalArgumentException e) {
            // A nested struct class registered later: resolved on first use (the error comes then).
        }
    }

    @SuppressWarnings("unchecked")
    private static Class<Object> castClass(Class<?> cls) {
        return (Class<Object>) cls;
    }

    String classIdOf(Class<?> cls) {
        StructSchema s = byClass.get(cls);
        return s == null ? null : s.classId;
    }

    @Override
    public Object canonicalInstance(Object value, int depth, BiFunction<Object, Integer, Object> canonical) {
        return canonical().standIn(value, depth, canonical);
    }

    private CanonicalStructs canonical() {
        CanonicalStructs c = canonicalStructs;
        if (c == null) {
            c = new CanonicalStructs(this);
            canonicalStructs = c;
        }
        return c;
    }

    StructSchema schemaOf(Class<?> cls) {
        return byClass.get(cls);
    }

    String classIdOfValue(Object value) {
        if (value instanceof StructValue carrier) {
            return carrier.classId();
        }
        StructSchema s = byClass.get(value.getClass());
        return s == null ? null : s.classId;
    }

    /** The class ID a decoded standard value was read under (for the standard atoms), or null. */
    String standardAtomOf(Object value) {
        try {
            return owner.getClassId(value.getClass());
        } catch (SerializationException e) {
            return null;
        }
    }

    /**
     * The last table read whose bytes were at most {@link #CACHED_TABLE_MAX} long, with what each
     * definition is read by (a {@link ReadPlan} or a {@link CarrierReader}), made under the
     * registrations of {@code generation} and checked under {@code limits}. A frame whose bytes at the table's position are these
     * is not parsed again: msgpack is self-delimiting, so the same bytes are the same table.
     */
    private record CachedTable(byte[] bytes, int generation, serreg.Limits limits, Parsed[] parsed, Object[] readers) {
    }

    private static final int CACHED_TABLE_MAX = 4096;
    private volatile CachedTable lastTable;
    /** Bumped by each registration (a class ID read as a carrier may have become a class). */
    private volatile int generation;

    /** Reads a table (the msgpack array at {@code in}'s position), leaving {@code in} just past it. */
    DecodeScope.Entry[] readTable(InBandReader in) {
        long start = in.offset();
        CachedTable cached = lastTable;
        if (cached != null && cached.generation() == generation && cached.limits() == in.limits()
                && in.nextBytesAre(cached.bytes())) {
            in.skip(cached.bytes().length, "the struct table");
            DecodeScope.Entry[] table = new DecodeScope.Entry[cached.parsed().length];
            for (int i = 0; i < table.length; i++) {
                table[i] = entryOf(cached.parsed()[i], cached.readers()[i]);
            }
            return table;
        }
        int seen = generation;
        long at = in.offset();
        int count = in.readArrayHeader();
        if (count > StructFrames.MAX_DEFINITIONS) {
            throw new DeserializationException("the struct table declares " + count + " definitions; at most "
                    + StructFrames.MAX_DEFINITIONS, at);
        }
        List<DecodeScope.Entry> table = new ArrayList<>(Math.min(count, 64));
        Parsed[] parsedAll = new Parsed[Math.min(count, 64)];
        Object[] readers = new Object[parsedAll.length];
        for (int i = 0; i < count; i++) {
            long defStart = in.offset();
            Object definition = in.readValue();
            byte[] raw = in.copyReadSince(defStart);
            StructSchema.DefinitionKey key = new StructSchema.DefinitionKey(raw);
            Parsed p = parsed(i, definition, key, defStart);
            Object reader = readerOf(p, key);
            if (i < parsedAll.length) {
                parsedAll[i] = p;
                readers[i] = reader;
            }
            table.add(entryOf(p, reader));
        }
        if (count <= parsedAll.length && in.offset() - start <= CACHED_TABLE_MAX) {
            lastTable = new CachedTable(in.copyReadSince(start), seen, in.limits(), parsedAll, readers);
        }
        return table.toArray(new DecodeScope.Entry[0]);
    }

    /** A definition read from a frame, checked: class ID, its hash, field names and types. */
    private record Parsed(String classId, long hash, List<String> names, List<FieldType> types) {
    }

    private Parsed parsed(int index, Object definition, StructSchema.DefinitionKey key, long at) {
        Parsed p = parsed.get(key);
        if (p == null) {
            p = parse(index, definition, at);
            if (parsed.size() < CACHE_MAX) {
                parsed.put(key, p);
            }
        }
        return p;
    }

    /** What reads the instances of a definition: the plan of its registered class, or a carrier reader. */
    private Object readerOf(Parsed p, StructSchema.DefinitionKey key) {
        StructSchema schema = byId.get(p.classId());
        return schema != null ? schema.plan(key, p.names(), p.types()) : carrierReader(p.classId(), key, p.names(), p.types());
    }

    private static DecodeScope.Entry entryOf(Parsed p, Object reader) {
        if (reader instanceof ReadPlan plan) {
            return new DecodeScope.Entry(p.classId(), p.hash(), p.names().size(), plan.current(), plan);
        }
        CarrierReader carrier = (CarrierReader) reader;
        return new DecodeScope.Entry(p.classId(), p.hash(), p.names().size(), carrier, carrier);
    }

    /** The column writer of the instances of {@code definition} written value by value (cached by its bytes). */
    ColumnWriter.ByValue carrierColumns(byte[] definition, String classId, List<String> names, List<FieldType> types) {
        StructSchema.DefinitionKey key = new StructSchema.DefinitionKey(definition);
        ColumnWriter.ByValue w = carrierColumns.get(key);
        if (w == null) {
            int n = types.size();
            FieldType[] t = types.toArray(new FieldType[0]);
            String[] where = new String[n];
            Conversions.Writer[] writers = new Conversions.Writer[n];
            for (int i = 0; i < n; i++) {
                where[i] = classId + "." + names.get(i);
                writers[i] = FieldWriters.writer(t[i], null, where[i], this);
            }
            w = new ColumnWriter.ByValue(t, where, writers);
            if (carrierColumns.size() < CACHE_MAX) {
                carrierColumns.put(key, w);
            }
        }
        return w;
    }

    private static Parsed parse(int index, Object definition, long at) {
        String where = "struct definition " + index;
        if (!(definition instanceof List<?> d) || d.size() != 2 || !(d.get(0) instanceof String classId)
                || classId.isEmpty()) {
            throw new DeserializationException(where + " must be [class ID: str, fields: array]", at);
        }
        where += " ('" + classId + "')";
        if (!(d.get(1) instanceof List<?> fields) || fields.size() > StructFrames.MAX_DEFINITIONS) {
            throw new DeserializationException(where + ": fields must be an array of at most "
                    + StructFrames.MAX_DEFINITIONS + " [name, type]", at);
        }
        List<String> names = new ArrayList<>(fields.size());
        List<FieldType> types = new ArrayList<>(fields.size());
        for (Object field : fields) {
            if (!(field instanceof List<?> f) || f.size() != 2 || !(f.get(0) instanceof String name) || name.isEmpty()) {
                throw new DeserializationException(where + ": every field must be [name: non-empty str, type]", at);
            }
            names.add(name);
            types.add(FieldType.parse(f.get(1), classId + "." + name, 0));
        }
        if (new HashSet<>(names).size() != names.size()) {
            throw new DeserializationException(where + ": field names repeat", at);
        }
        return new Parsed(classId, ClassIdHash.of(classId).toLong(), List.copyOf(names), List.copyOf(types));
    }

    private CarrierReader carrierReader(String classId, StructSchema.DefinitionKey key, List<String> names,
            List<FieldType> types) {
        CarrierReader cached = carrierReaders.get(key);
        if (cached != null) {
            return cached;
        }
        CarrierReader reader = new CarrierReader(classId, names, types, key.bytes(), this);
        if (carrierReaders.size() < CACHE_MAX) {
            carrierReaders.put(key, reader);
        }
        return reader;
    }
}
