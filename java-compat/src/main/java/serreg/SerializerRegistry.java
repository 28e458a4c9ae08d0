package serreg;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import serreg.types.HasClassId;
import serreg.types.OpaqueValue;

/**
 * Maps class IDs to serializers and Java classes to class IDs; serializes values to
 * {@link SerializationResult}s and frames and back (docs/FORMAT.md).
 *
 * <p>Rules, the same as Python's {@code serreg.Registry}:
 * <ul>
 *   <li>A class ID is bound to one set of Java classes; registering it again for other classes
 *       is refused. Registering it again for the same classes replaces its serializer.</li>
 *   <li>A class ID whose ClassIDHash equals that of another registered class ID is refused.</li>
 *   <li>A class may have several class IDs: the newest is used to serialize it, frames under the
 *       older IDs still decode, and unregistering the newest makes the previous one current.</li>
 * </ul>
 *
 * <p>Which serializer writes a value: a value that names its own class ID ({@link HasClassId},
 * e.g. NumpyScalar) uses that ID; an {@link OpaqueValue} is written back as it was read;
 * {@code null} uses class ID {@code None}; anything else is looked up by its exact class, then,
 * only if that fails, as a {@code java.util.List}, {@code Map} or {@code Set} when such an
 * interface is registered (so {@code List.of(...)} is a list).
 *
 * <p>Reading: a ClassIDHash that no serializer is registered under becomes an
 * {@link OpaqueValue} (kept byte-identical, written back identical). Registration methods are
 * synchronized; lookups and (de)serialization are safe from any thread.
 *
 * <p>Hostile input: whatever bytes reach {@code deserialize}, the result is a value or a
 * {@link DeserializationException} that says what is wrong and where (byte offset, class IDs),
 * within the registry's {@link Limits} (docs/FORMAT.md sections 4.1 and 4.3). Signed frames
 * (section 4.2): {@link #serialize(Object, byte[])} signs, {@link #deserialize(ByteBuffer, byte[])}
 * refuses with a {@link SignatureException} any frame not signed with the key, before decoding it.
 */
public final class SerializerRegistry {
    /** Interfaces tried, in this order, when a value's exact class has no class ID. */
    private static final List<Class<?>> INTERFACE_FALLBACKS = List.of(List.class, Map.class, Set.class);

    private record Registration(String classId, ClassIdHash hash, Serializer<?> serializer, Set<Class<?>> classes) {
    }

    private static volatile SerializerRegistry defaultRegistry;

    private final java.util.function.Function<String, ClassIdHash> hasher;
    private final Map<String, Registration> byId = new ConcurrentHashMap<>();
    private final Map<ClassIdHash, Registration> byHash = new ConcurrentHashMap<>();
    /** Class to its class IDs, oldest first; lists are replaced, never mutated. */
    private final Map<Class<?>, List<String>> idsByClass = new ConcurrentHashMap<>();
    private volatile Limits limits = Limits.DEFAULT;

    /** An empty registry. */
    public SerializerRegistry() {
        this(ClassIdHash::of);
    }

    /** An empty registry with another hash function: only for testing the collision rule. */
    SerializerRegistry(java.util.function.Function<String, ClassIdHash> hasher) {
        this.hasher = hasher;
    }

    /** A new registry with every standard serializer of docs/FORMAT.md (core, numpy, Arrow). */
    public static SerializerRegistry withStandardSerializers() {
        SerializerRegistry registry = new SerializerRegistry();
        serreg.standard.StandardSerializers.registerAll(registry);
        serreg.numpy.NumpySerializers.registerAll(registry);
        serreg.arrow.ArrowSerializers.registerAll(registry);
        return registry;
    }

    /** The process-wide registry, created with the standard serializers on first use. */
    public static SerializerRegistry getDefault() {
        SerializerRegistry r = defaultRegistry;
        if (r == null) {
            synchronized (SerializerRegistry.class) {
                r = defaultRegistry;
                if (r == null) {
                    r = withStandardSerializers();
                    defaultRegistry = r;
                }
            }
        }
        return r;
    }

    /** The limits every {@code deserialize} call without its own uses. */
    public Limits limits() {
        return limits;
    }

    /** Sets the limits for {@code deserialize} calls that do not pass their own. */
    public void setLimits(Limits limits) {
        this.limits = java.util.Objects.requireNonNull(limits, "limits");
    }

    /** Registers {@code serializer} for {@code cls} under {@code classId}. */
    public <T> void registerSerializer(String classId, Class<T> cls, Serializer<T> serializer) {
        register(classId, Set.of(cls), serializer);
    }

    /**
     * Registers one serializer under {@code classId} for several Java classes, for class IDs that
     * map to more than one Java type (e.g. {@code datetime} to LocalDateTime, OffsetDateTime and
     * ZonedDateTime). The first class is the serializer's main one.
     */
    public <T> void registerSerializer(String classId, Serializer<T> serializer, List<Class<? extends T>> classes) {
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("a class ID is registered for at least one class");
        }
        register(classId, new LinkedHashSet<>(classes), serializer);
    }

    private synchronized void register(String classId, Set<Class<?>> classes, Serializer<?> serializer) {
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
    }

    /** Removes the class ID; its classes fall back to the class ID registered before it, if any. */
    public synchronized void unregisterSerializer(String classId) {
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
    }

    /** The serializer registered under {@code classId}. */
    public Serializer<?> getSerializer(String classId) {
        Registration registration = byId.get(classId);
        if (registration == null) {
            throw new UnknownClassIdException(classId);
        }
        return registration.serializer();
    }

    /** The serializer used for values of exactly this class. */
    @SuppressWarnings("unchecked")
    public <T> Serializer<T> getSerializer(Class<T> cls) {
        return (Serializer<T>) byId.get(getClassId(cls)).serializer();
    }

    /** The class ID used for values of exactly this class (the newest registered for it). */
    public String getClassId(Class<?> cls) {
        List<String> ids = idsByClass.get(cls);
        if (ids == null) {
            throw new SerializationException("no serializer is registered for class " + cls.getName()
                    + "; register one with registerSerializer(classId, " + cls.getSimpleName() + ".class, serializer)");
        }
        return ids.get(ids.size() - 1);
    }

    /** Whether a serializer is registered under this class ID. */
    public boolean isRegistered(String classId) {
        return byId.containsKey(classId);
    }

    /** The ClassIDHash this registry uses for {@code classId}. */
    public ClassIdHash hashOf(String classId) {
        return hasher.apply(classId);
    }

    /** The class ID registered under this hash, or null. */
    public String classIdOf(ClassIdHash hash) {
        Registration registration = byHash.get(hash);
        return registration == null ? null : registration.classId();
    }

    /** Serializes a value: the result's in-band starts with the ClassIDHash. */
    public SerializationResult serialize(Object value) {
        if (value instanceof OpaqueValue opaque) {
            return opaque.toSerializationResult();
        }
        Registration registration = registrationFor(value);
        SerializationResult own = callSerialize(registration, value);
        ByteBuffer body = own.inBand();
        ByteBuffer section = ByteBuffer.allocate(ClassIdHash.SIZE + body.remaining());
        registration.hash().writeTo(section);
        section.put(body).flip();
        return new SerializationResult(section, own.outOfBand());
    }

    /**
     * Serializes a value into a result whose frames are signed with {@code key} (docs/FORMAT.md
     * section 4.2): at least 16 bytes, 32 random bytes recommended.
     *
     * @throws IllegalArgumentException if the key is null or shorter than 16 bytes
     */
    public SerializationResult serialize(Object value, byte[] key) {
        byte[] checked = FrameSignature.checkKey(key);
        return serialize(value).signed(checked);
    }

    /** Serializes a value into a contiguous frame held in one heap buffer. */
    public ByteBuffer serializeToFrame(Object value) {
        return serialize(value).toFrame();
    }

    /** Serializes a value into a contiguous frame signed with {@code key}, in one heap buffer. */
    public ByteBuffer serializeToFrame(Object value, byte[] key) {
        return serialize(value, key).toFrame();
    }

    /** Writes a value inside a msgpack document: inline when native, else ext 0 (section 3). */
    void writeNested(Object value, InBandWriter out) {
        if (!(value instanceof OpaqueValue)) {
            Registration registration = registrationFor(value);
            if (registration.serializer() instanceof InlineSerializer<?> inline && writesInline(inline, value)) {
                writeInline(inline, value, out);
                return;
            }
        }
        out.writeExtNested(serialize(value));
    }

    @SuppressWarnings("unchecked")
    private static <T> boolean writesInline(InlineSerializer<T> serializer, Object value) {
        return serializer.writesInline((T) value);
    }

    @SuppressWarnings("unchecked")
    private static <T> void writeInline(InlineSerializer<T> serializer, Object value, InBandWriter out) {
        serializer.writeInline((T) value, out);
    }

    @SuppressWarnings("unchecked")
    private static <T> SerializationResult callSerialize(Registration registration, Object value) {
        try {
            return ((Serializer<T>) registration.serializer()).serialize((T) value);
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SerializationException("serializer for class ID '" + registration.classId()
                    + "' failed on a " + value.getClass().getName() + ": " + e, e);
        }
    }

    private Registration registrationFor(Object value) {
        String classId;
        if (value == null) {
            classId = "None";
        } else if (value instanceof HasClassId named) {
            classId = named.classId();
        } else {
            classId = classIdForClass(value.getClass());
        }
        Registration registration = byId.get(classId);
        if (registration == null) {
            throw new SerializationException("no serializer is registered under class ID '" + classId + "'"
                    + (value == null ? " (needed for null)" : " (needed for a " + value.getClass().getName() + ")"));
        }
        return registration;
    }

    private String classIdForClass(Class<?> cls) {
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
            throw new SerializationException("no serializer is registered for class " + cls.getName()
                    + "; register one with registerSerializer(classId, " + cls.getSimpleName() + ".class, serializer)");
        }
        return ids.get(ids.size() - 1);
    }

    /**
     * Deserializes a result whose in-band is an in-band section (starts with a ClassIDHash), for
     * example one that never left the process.
     */
    public Object deserialize(SerializationResult result) {
        return deserializeResult(result, limits, totalBytes(result));
    }

    /** As {@link #deserialize(SerializationResult)}, with this call's own limits. */
    public Object deserialize(SerializationResult result, Limits limits) {
        return deserializeResult(result, java.util.Objects.requireNonNull(limits, "limits"), totalBytes(result));
    }

    /**
     * Deserializes an in-process result that must have been signed with {@code key}: it never
     * was a frame, so the key it was signed with is compared instead of a trailer.
     *
     * @throws SignatureException if the result is unsigned or signed with another key
     */
    public Object deserialize(SerializationResult result, byte[] key) {
        byte[] checked = FrameSignature.checkKey(key);
        if (!result.isSigned()) {
            throw FrameSignature.notSigned();
        }
        if (!FrameSignature.sameKey(result.signingKey(), checked)) {
            throw new SignatureException("the result was signed with another key; nothing was decoded", -1);
        }
        return deserialize(result);
    }

    private Object deserializeResult(SerializationResult result, Limits callLimits, long frameBytes) {
        DecodeState state = DecodeState.begin(callLimits, frameBytes);
        try {
            List<ByteBuffer> buffers = result.outOfBand();
            Iterator<ByteBuffer> oob = buffers.iterator();
            Object value = deserializeSection(result.inBand(), oob, true);
            int left = 0;
            while (oob.hasNext()) {
                oob.next();
                left++;
            }
            if (left > 0) {
                throw new DeserializationException("the value did not use the last " + left + " of the frame's "
                        + buffers.size() + " OOB buffers: no serializer used them");
            }
            return value;
        } finally {
            if (state != null) {
                state.end();
            }
        }
    }

    private static long totalBytes(SerializationResult result) {
        long total = result.inBand().remaining();
        for (ByteBuffer b : result.outOfBand()) {
            total += b.remaining();
        }
        return total;
    }

    /**
     * Deserializes the contiguous frame at {@code frame}'s position, signed or not, within the
     * registry's limits. For a direct or memory-mapped buffer nothing is copied: NDArray data,
     * Arrow vectors, OOB-backed values and opaque values are views of the frame, valid while the
     * frame's memory is.
     *
     * @throws DeserializationException if the bytes are not a valid frame or value; never another
     *     exception type for bad bytes
     */
    public Object deserialize(ByteBuffer frame) {
        return deserializeFrame(frame, limits, null);
    }

    /** As {@link #deserialize(ByteBuffer)}, with this call's own limits. */
    public Object deserialize(ByteBuffer frame, Limits limits) {
        return deserializeFrame(frame, java.util.Objects.requireNonNull(limits, "limits"), null);
    }

    /**
     * Deserializes a frame that must be signed with {@code key} (docs/FORMAT.md section 4.2). The
     * header is checked up to the total length, then the frame is refused unless it is signed
     * and its HMAC-SHA256 trailer matches (compared in constant time); only then is the rest
     * read and decoded.
     *
     * @throws SignatureException if the frame is unsigned, signed with another key or altered
     * @throws IllegalArgumentException if the key is null or shorter than 16 bytes
     */
    public Object deserialize(ByteBuffer frame, byte[] key) {
        return deserializeFrame(frame, limits, FrameSignature.checkKey(key));
    }

    /** As {@link #deserialize(ByteBuffer, byte[])}, with this call's own limits. */
    public Object deserialize(ByteBuffer frame, byte[] key, Limits limits) {
        return deserializeFrame(frame, java.util.Objects.requireNonNull(limits, "limits"), FrameSignature.checkKey(key));
    }

    private Object deserializeFrame(ByteBuffer frame, Limits callLimits, byte[] key) {
        SerializationResult result = FrameReader.read(frame, callLimits, key);
        long inBandOffset = FrameLayout.HEADER_SIZE + (long) FrameLayout.TABLE_ENTRY_SIZE * result.outOfBand().size();
        try {
            return deserializeResult(result, callLimits, FrameReader.frameLength(frame));
        } catch (DeserializationException e) {
            throw e.shiftOffset(inBandOffset);
        }
    }

    /**
     * Reads one in-band section (ClassIDHash + serializer in-band). {@code topLevel} tells whether
     * every remaining OOB buffer belongs to this value, which is how an unknown class ID's value
     * can be kept opaque with its buffers.
     */
    Object deserializeSection(ByteBuffer section, Iterator<ByteBuffer> oob, boolean topLevel) {
        if (section.remaining() < ClassIdHash.SIZE) {
            throw new DeserializationException("an in-band section starts with an 8-byte ClassIDHash but only "
                    + section.remaining() + " bytes are there", 0);
        }
        ClassIdHash hash = ClassIdHash.readFrom(section, section.position());
        ByteBuffer body = section.slice(section.position() + ClassIdHash.SIZE, section.remaining() - ClassIdHash.SIZE);
        Registration registration = byHash.get(hash);
        if (registration == null) {
            return OpaqueValue.ofUnknown(hash, body, takeOwnedBuffers(hash, oob, topLevel));
        }
        // A serializer called directly (not through deserialize) still gets a depth count.
        DecodeState started = DecodeState.begin(limits, section.remaining());
        DecodeState state = started != null ? started : DecodeState.current();
        try {
            state.enterValue(0);
            try {
                return registration.serializer().deserialize(body, oob);
            } catch (DeserializationException e) {
                throw e.shiftOffset(ClassIdHash.SIZE).enclosedIn(registration.classId());
            } catch (SerregException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new DeserializationException("serializer failed: " + e, -1, e).enclosedIn(registration.classId());
            } finally {
                state.exitValue();
            }
        } finally {
            if (started != null) {
                started.end();
            }
        }
    }

    /**
     * The OOB buffers a value of an unknown class ID owns. At the top level that is every buffer
     * left; inside a document it can only be known when none is left (docs/FORMAT.md section 3).
     */
    private static List<ByteBuffer> takeOwnedBuffers(ClassIdHash hash, Iterator<ByteBuffer> oob, boolean topLevel) {
        List<ByteBuffer> owned = new ArrayList<>();
        if (topLevel) {
            oob.forEachRemaining(owned::add);
        } else if (oob.hasNext()) {
            throw new DeserializationException("a nested value of unknown ClassIDHash " + hash.toHex()
                    + " is followed by OOB buffers, and without its serializer Java cannot tell how many"
                    + " of them it owns; register a serializer for its class ID", 0);
        }
        return owned;
    }

    private static String names(Set<Class<?>> classes) {
        return classes.stream().map(Class::getName).sorted().toList().toString();
    }
}
