package serreg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import serreg.types.HasClassId;
import serreg.wire.ClassIdHash;

/**
 * The registrations of one {@link SerializerRegistry}: class ID to serializer, ClassIDHash to
 * class ID, Java class to its class IDs (oldest first), and the lookup that picks the
 * registration a value is written with. Package-private: the registry's public methods are its
 * only door. Writes are synchronized; reads are lock-free from any thread.
 */
final class RegistrationTable {
    /**
     * One class ID, its hash, its serializer and the Java classes it is bound to; {@code inline}
     * and {@code msgpack} are the serializer again when it is an {@link InlineSerializer} or a
     * {@link MsgpackSerializer} (else null), so the writer and reader test a field, not a type,
     * for every value; {@code form} is the inline serializer's {@link InlineSerializer#inlineForm}
     * ({@code CALL} for any other), asked once here rather than once per value; {@code struct}
     * marks a struct's serializer, whose values are written as ext 1 inside documents
     * (docs/FORMAT.md section 10).
     */
    record Registration(String classId, ClassIdHash hash, Serializer<?> serializer, Set<Class<?>> classes,
            InlineSerializer<Object> inline, InlineSerializer.Form form, MsgpackSerializer<Object> msgpack, boolean struct) {
        @SuppressWarnings("unchecked")
        Registration(String classId, ClassIdHash hash, Serializer<?> serializer, Set<Class<?>> classes) {
            this(classId, hash, serializer, classes,
                    serializer instanceof InlineSerializer<?> i ? (InlineSerializer<Object>) i : null,
                    serializer instanceof InlineSerializer<?> i ? formOf(i) : InlineSerializer.Form.CALL,
                    serializer instanceof MsgpackSerializer<?> m ? (MsgpackSerializer<Object>) m : null,
                    SerializerRegistry.STRUCTS.writesInstances(serializer));
        }

        private static InlineSerializer.Form formOf(InlineSerializer<?> serializer) {
            InlineSerializer.Form form = serializer.inlineForm();
            return form != null ? form : InlineSerializer.Form.CALL;
        }
    }

    /** Interfaces tried, in this order, when a value's exact class has no class ID. */
    private static final List<Class<?>> INTERFACE_FALLBACKS = List.of(List.class, Map.class, Set.class);

    private final Function<String, ClassIdHash> hasher;
    private final Map<String, Registration> byId = new ConcurrentHashMap<>();
    private final Map<ClassIdHash, Registration> byHash = new ConcurrentHashMap<>();
    /** Class to its class IDs, oldest first; lists are replaced, never mutated. */
    private final Map<Class<?>, List<String>> idsByClass = new ConcurrentHashMap<>();
    /**
     * What {@link #forValue} found for a class (not for null or {@link HasClassId} values). Each
     * registration change replaces the whole map after changing the tables, so a lookup that
     * raced with it can only fill a map that is already dropped.
     */
    private volatile Map<Class<?>, Registration> resolved = new ConcurrentHashMap<>();
    /** Counts registration changes: a cache of lookups made at one generation is stale at another. */
    private volatile int generation;
    /** The registrations by ClassIDHash as u64, rebuilt whole at each change: readers look a hash up with no allocation. */
    private volatile HashIndex hashIndex = HashIndex.of(List.of());

    RegistrationTable(Function<String, ClassIdHash> hasher) {
        this.hasher = hasher;
    }

    ClassIdHash hash(String classId) {
        return hasher.apply(classId);
    }

    synchronized void register(String classId, Set<Class<?>> classes, Serializer<?> serializer) {
        if (classId == null || classId.isEmpty()) {
            throw new RegistrationException("a class ID is a non-empty string");
        }
        if (serializer == null) {
            throw new RegistrationException("serializer for class ID '" + classId + "' is null");
        }
        Registration existing = byId.get(classId);
        if (existing != null && !existing.classes().equals(classes)) {
            throw new RegistrationException("class ID '" + classId + "' is already bound to "
                    + names(existing.classes()) + "; unregister it before binding it to " + names(classes));
        }
        ClassIdHash hash = hasher.apply(classId);
        Registration clash = byHash.get(hash);
        if (clash != null && !clash.classId().equals(classId)) {
            throw new RegistrationException("class ID '" + classId + "' has ClassIDHash " + hash.toHex()
                    + ", the same as registered class ID '" + clash.classId() + "'; choose another class ID");
        }
        Registration registration = new Registration(classId, hash, serializer, Set.copyOf(classes));
        byId.put(classId, registration);
        byHash.put(hash, registration);
        for (Class<?> cls : classes) {
            List<String> ids = new ArrayList<>(idsByClass.getOrDefault(cls, List.of()));
            ids.remove(classId);
            ids.add(classId);
            idsByClass.put(cls, List.copyOf(ids));
        }
        resolved = new ConcurrentHashMap<>();
        hashIndex = HashIndex.of(byHash.values());
        generation++;
    }

    synchronized void unregister(String classId) {
        Registration registration = byId.remove(classId);
        if (registration == null) {
            throw new UnknownClassIdException(classId);
        }
        byHash.remove(registration.hash());
        for (Class<?> cls : registration.classes()) {
            List<String> ids = new ArrayList<>(idsByClass.getOrDefault(cls, List.of()));
            ids.remove(classId);
            if (ids.isEmpty()) {
                idsByClass.remove(cls);
            } else {
                idsByClass.put(cls, List.copyOf(ids));
            }
        }
        resolved = new ConcurrentHashMap<>();
        hashIndex = HashIndex.of(byHash.values());
        generation++;
    }

    /** Changes each time a class ID is registered or unregistered (see {@link WriterClassCache}). */
    int generation() {
        return generation;
    }

    /** The registration under {@code classId}, or null. */
    Registration byId(String classId) {
        return byId.get(classId);
    }

    /** The registration under {@code hash}, or null. */
    Registration byHash(ClassIdHash hash) {
        return byHash.get(hash);
    }

    /** The registration under the ClassIDHash whose wire bytes read as this u64 little-endian, or null (no allocation). */
    Registration byHash(long hash) {
        return hashIndex.get(hash);
    }

    /**
     * An immutable open-addressed table from ClassIDHash (as u64) to registration, at most half
     * full, built whole after each registration change; a reader holds one snapshot for a lookup.
     */
    private record HashIndex(long[] hashes, Registration[] registrations, int mask) {
        static HashIndex of(java.util.Collection<Registration> all) {
            int size = Integer.highestOneBit(Math.max(4, all.size() * 2 - 1)) << 1;
            long[] hashes = new long[size];
            Registration[] registrations = new Registration[size];
            for (Registration r : all) {
                long h = r.hash().toLong();
                int i = slot(h, size - 1);
                while (registrations[i] != null) {
                    i = (i + 1) & (size - 1);
                }
                hashes[i] = h;
                registrations[i] = r;
            }
            return new HashIndex(hashes, registrations, size - 1);
        }

        private static int slot(long hash, int mask) {
            return (int) (hash ^ (hash >>> 32)) & mask; // the bytes of a SHA-256 prefix: already spread
        }

        Registration get(long hash) {
            int i = slot(hash, mask);
            while (true) {
                Registration r = registrations[i];
                if (r == null || hashes[i] == hash) {
                    return r;
                }
                i = (i + 1) & mask;
            }
        }
    }

    /** The newest class ID of exactly this class. */
    String classIdOf(Class<?> cls) {
        List<String> ids = idsByClass.get(cls);
        if (ids == null) {
            throw noSerializerFor(cls);
        }
        return ids.get(ids.size() - 1);
    }

    /**
     * The registration a value is written with: {@code None} for null, the value's own class ID
     * for a {@link HasClassId}, else the newest class ID of its exact class, else of the first
     * of {@code List}, {@code Map}, {@code Set} it implements that has one.
     */
    Registration forValue(Object value) {
        if (value != null && !(value instanceof HasClassId)) {
            Map<Class<?>, Registration> cache = resolved;
            Registration known = cache.get(value.getClass());
            if (known != null) {
                return known;
            }
            Registration found = lookUp(value);
            cache.put(value.getClass(), found);
            return found;
        }
        return lookUp(value);
    }

    private Registration lookUp(Object value) {
        String classId;
        if (value == null) {
            classId = "None";
        } else if (value instanceof HasClassId named) {
            classId = named.classId();
        } else {
            classId = classIdForValueClass(value.getClass());
        }
        Registration registration = byId.get(classId);
        if (registration == null) {
            throw new SerializationException("no serializer is registered under class ID '" + classId + "'"
                    + (value == null ? " (needed for null)" : " (needed for a " + value.getClass().getName() + ")"));
        }
        return registration;
    }

    private String classIdForValueClass(Class<?> cls) {
        List<String> ids = idsByClass.get(cls);
        if (ids == null) {
            for (Class<?> iface : INTERFACE_FALLBACKS) {
                if (iface.isAssignableFrom(cls)) {
                    ids = idsByClass.get(iface);
                    if (ids != null) {
                        break;
                    }
                }
            }
        }
        if (ids == null) {
            throw noSerializerFor(cls);
        }
        return ids.get(ids.size() - 1);
    }

    private static SerializationException noSerializerFor(Class<?> cls) {
        return new SerializationException("no serializer is registered for class " + cls.getName()
                + "; register one with registerSerializer(classId, " + cls.getSimpleName() + ".class, serializer)");
    }

    private static String names(Set<Class<?>> classes) {
        return classes.stream().map(Class::getName).sorted().toList().toString();
    }
}
