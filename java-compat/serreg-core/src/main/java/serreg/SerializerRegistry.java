package serreg;

import java.nio.ByteBuffer;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import serreg.types.HasClassId;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;
import serreg.wire.FrameSignature;

/**
 * Maps class IDs to serializers and Java classes to class IDs; serializes values to
 * {@link SerializationResult}s and frames and back (docs/FORMAT.md). A thin face over
 * package-private parts: the registration table, the value encoder and the value decoder.
 *
 * <p>Defaults, as Python's {@code serreg.Registry()}: {@code new SerializerRegistry()} has every
 * {@link SerializerModule} on the class path registered: the standard types and numpy (both in
 * serreg-core) and Arrow when serreg-arrow is there. {@link #empty()} has nothing registered.
 *
 * <p>Rules, the same as Python's:
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
 * <p>Hostile input: whatever bytes reach {@code deserialize}, trusted or not, the result is a value or a
 * {@link DeserializationException} (never another exception or an Error) that says what is wrong and where (byte offset, class IDs),
 * within the registry's {@link Limits} (docs/FORMAT.md sections 4.1 and 4.3). Signed frames
 * (section 4.2): {@link #serialize(Object, byte[])} signs, {@link #deserialize(ByteBuffer, byte[])}
 * refuses with a {@link SignatureException} any frame not signed with the key, before decoding it.
 */
public final class SerializerRegistry {
    /** The struct support (package serreg.structs), found once through {@link java.util.ServiceLoader}. */
    static final StructSupport.Provider STRUCTS = java.util.ServiceLoader
            .load(StructSupport.Provider.class, SerializerRegistry.class.getClassLoader())
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("serreg-core is incomplete: no " + StructSupport.Provider.class.getName()
                    + " in META-INF/services"));

    private static volatile SerializerRegistry defaultRegistry;

    private final RegistrationTable table;
    private final ValueEncoder encoder;
    private final ValueDecoder decoder;
    private final StructSupport structs;

    /**
     * A registry with every {@link SerializerModule} found on the class path registered: the
     * standard types and numpy always, Arrow when serreg-arrow is on the class path. Nothing is
     * initialised for a module until one of its values is used (Arrow needs
     * {@code --add-opens=java.base/java.nio=ALL-UNNAMED} only then).
     *
     * @throws RegistrationException if a module cannot be loaded or fails to register
     */
    public SerializerRegistry() {
        this(ClassIdHash::of);
        for (SerializerModule module : ModuleDiscovery.discover()) {
            registerModule(module);
        }
    }

    /** An empty registry with another hash function: only for testing the collision rule. */
    SerializerRegistry(Function<String, ClassIdHash> hasher) {
        this.table = new RegistrationTable(hasher);
        this.encoder = new ValueEncoder(table, this);
        this.decoder = new ValueDecoder(table);
        this.structs = STRUCTS.create(this);
    }

    /**
     * A registry with no serializer at all, not even the standard types: register what it may
     * read and write, one by one or with {@link #registerModule}.
     *
     * @return a new empty registry
     */
    public static SerializerRegistry empty() {
        return new SerializerRegistry(ClassIdHash::of);
    }

    /**
     * The process-wide registry, created as {@code new SerializerRegistry()} on first use.
     *
     * @return the shared registry
     */
    public static SerializerRegistry getDefault() {
        SerializerRegistry r = defaultRegistry;
        if (r == null) {
            synchronized (SerializerRegistry.class) {
                r = defaultRegistry;
                if (r == null) {
                    r = new SerializerRegistry();
                    defaultRegistry = r;
                }
            }
        }
        return r;
    }

    /**
     * Registers every serializer of {@code module} on this registry.
     *
     * @param module the module to register
     * @throws RegistrationException if the module fails, naming it
     */
    public void registerModule(SerializerModule module) {
        try {
            module.register(this);
        } catch (RuntimeException | LinkageError e) {
            throw new RegistrationException("serializer module " + module.name() + " failed to register: " + e, e);
        }
    }

    /**
     * The limits every {@code deserialize} call without its own uses.
     *
     * @return this registry's limits
     */
    public Limits limits() {
        return decoder.limits();
    }

    /**
     * Sets the limits for {@code deserialize} calls that do not pass their own.
     *
     * @param limits the new limits
     */
    public void setLimits(Limits limits) {
        decoder.setLimits(limits);
    }

    /**
     * Whether {@code deserialize} calls that do not say otherwise are trusted (true for a new
     * registry, as in Python). An untrusted call (docs/FORMAT.md section 4.4) decodes only the
     * class IDs of {@link #allowedClassIds()}, checked by ClassIDHash before a serializer sees a
     * byte, at every nesting level: {@code serreg.pickle5}, {@code serreg.dataclass} and
     * ClassIDHashes with no serializer (which a trusted call keeps as {@link OpaqueValue}s) are
     * refused with an {@link UntrustedClassIdException}. Limits apply in both modes.
     *
     * @return the default of this registry's deserialize calls
     */
    public boolean trusted() {
        return decoder.trusted();
    }

    /**
     * Sets whether {@code deserialize} calls that do not say otherwise are trusted; false makes
     * every such call untrusted (for a registry that only reads bytes from outside).
     *
     * @param trusted the new default
     */
    public void setTrusted(boolean trusted) {
        decoder.setTrusted(trusted);
    }

    /**
     * Lets untrusted deserialize calls decode these class IDs, for serializers known to be safe on
     * hostile bytes (they build plain data and check every length they read).
     *
     * @param classIds class IDs, registered or not
     * @throws IllegalArgumentException for {@code serreg.pickle5} and {@code serreg.dataclass},
     *     which can never be allowed
     */
    public void allowClassIds(String... classIds) {
        decoder.allow(List.of(classIds));
    }

    /**
     * The class IDs untrusted calls decode: {@link Trust#dataClassIds()} (the standard data class
     * IDs) and those added with {@link #allowClassIds}.
     *
     * @return an immutable set
     */
    public Set<String> allowedClassIds() {
        return decoder.allowedClassIds();
    }

    /**
     * Registers {@code serializer} for {@code cls} under {@code classId}.
     *
     * @param <T> the class's type
     * @param classId the class ID written in frames
     * @param cls the Java class whose values the serializer writes
     * @param serializer the serializer
     * @throws RegistrationException if the class ID is bound to other classes or its hash collides
     */
    public <T> void registerSerializer(String classId, Class<T> cls, Serializer<T> serializer) {
        table.register(classId, Set.of(cls), serializer);
    }

    /**
     * Registers one serializer under {@code classId} for several Java classes, for class IDs that
     * map to more than one Java type (e.g. {@code datetime} to LocalDateTime, OffsetDateTime and
     * ZonedDateTime). The first class is the serializer's main one.
     *
     * @param <T> the common type of the classes
     * @param classId the class ID written in frames
     * @param serializer the serializer
     * @param classes the Java classes, at least one
     * @throws RegistrationException if the class ID is bound to other classes or its hash collides
     */
    public <T> void registerSerializer(String classId, Serializer<T> serializer, List<Class<? extends T>> classes) {
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("a class ID is registered for at least one class");
        }
        table.register(classId, new LinkedHashSet<>(classes), serializer);
    }

    /**
     * Removes the class ID; its classes fall back to the class ID registered before it, if any.
     *
     * @param classId the class ID to remove
     * @throws UnknownClassIdException if it is not registered
     */
    public void unregisterSerializer(String classId) {
        table.unregister(classId);
    }

    /**
     * The serializer registered under {@code classId}.
     *
     * @param classId a registered class ID
     * @return its serializer
     * @throws UnknownClassIdException if it is not registered
     */
    public Serializer<?> getSerializer(String classId) {
        RegistrationTable.Registration registration = table.byId(classId);
        if (registration == null) {
            throw new UnknownClassIdException(classId);
        }
        return registration.serializer();
    }

    /**
     * The serializer used for values of exactly this class.
     *
     * @param <T> the class's type
     * @param cls the class
     * @return the serializer of its newest class ID
     * @throws SerializationException if no class ID is registered for it
     */
    @SuppressWarnings("unchecked")
    public <T> Serializer<T> getSerializer(Class<T> cls) {
        return (Serializer<T>) table.byId(table.classIdOf(cls)).serializer();
    }

    /**
     * The class ID used for values of exactly this class (the newest registered for it).
     *
     * @param cls the class
     * @return its newest class ID
     * @throws SerializationException if no class ID is registered for it
     */
    public String getClassId(Class<?> cls) {
        return table.classIdOf(cls);
    }

    /**
     * Whether a serializer is registered under this class ID.
     *
     * @param classId a class ID
     * @return true if registered
     */
    public boolean isRegistered(String classId) {
        return table.byId(classId) != null;
    }

    /**
     * The ClassIDHash this registry uses for {@code classId}.
     *
     * @param classId a class ID, registered or not
     * @return its hash
     */
    public ClassIdHash hashOf(String classId) {
        return table.hash(classId);
    }

    /**
     * The class ID registered under this hash.
     *
     * @param hash a ClassIDHash
     * @return the class ID, or null when none is registered under it
     */
    public String classIdOf(ClassIdHash hash) {
        RegistrationTable.Registration registration = table.byHash(hash);
        return registration == null ? null : registration.classId();
    }

    /**
     * Declares {@code cls} (a record, or a class with a no-argument constructor) the
     * cross-language struct {@code classId}: its fields are its serializer (docs/FORMAT.md section
     * 10). Fields are matched by name; Java's field types give the widths ({@code int} is int32,
     * {@code long} int64, {@code float} float32 ...). Accessors are looked up once, here, as
     * method handles.
     *
     * @param cls the class
     * @param classId the class ID written in frames (the same as the other languages')
     * @throws RegistrationException if the class has a field type with no struct type, or the
     *     class ID is taken
     */
    public void registerStruct(Class<?> cls, String classId) {
        structs.register(cls, classId);
    }

    /**
     * The struct classes of this registry (what the struct serializers look definitions up in).
     *
     * @return this registry's struct registry
     */
    public StructSupport structs() {
        return structs;
    }

    /**
     * Decodes an in-band section (ClassIDHash + serializer in-band) within the deserialize call
     * running on this thread, sharing its OOB buffers: what a serializer that embeds another
     * value's whole section calls (the struct table, for the value after it).
     *
     * @param section the in-band section
     * @param outOfBand the frame's OOB iterator
     * @return the value
     */
    public Object deserializeSection(ByteBuffer section, java.util.Iterator<ByteBuffer> outOfBand) {
        return decoder.readNestedSection(section, outOfBand);
    }

    /** The part {@link InBandWriter} writes nested values with. */
    ValueEncoder encoder() {
        return encoder;
    }

    /** The part {@link InBandReader} reads nested values with. */
    ValueDecoder decoder() {
        return decoder;
    }

    /**
     * Serializes a value.
     *
     * @param value any value a serializer is registered for (null included)
     * @return its in-band section (starting with the ClassIDHash) and OOB buffers
     * @throws SerializationException if no serializer is registered for it or one fails
     */
    public SerializationResult serialize(Object value) {
        return encoder.serialize(value);
    }

    /** The canonical form of the value {@code standIn} makes, the struct table sorted (see {@link Serreg}). */
    SerializationResult serializeCanonical(java.util.function.Supplier<Object> standIn) {
        return encoder.serializeCanonical(standIn);
    }

    /**
     * Serializes a value into a result whose frames are signed with {@code key} (docs/FORMAT.md
     * section 4.2).
     *
     * @param value the value
     * @param key at least 16 bytes, 32 random bytes recommended (copied)
     * @return the result, writing signed frames
     * @throws IllegalArgumentException if the key is null or shorter than 16 bytes
     */
    public SerializationResult serialize(Object value, byte[] key) {
        byte[] checked = FrameSignature.checkKey(key);
        return serialize(value).signed(checked);
    }

    /**
     * Serializes a value into a contiguous frame held in one heap buffer.
     *
     * @param value the value
     * @return the frame, position 0
     */
    public ByteBuffer serializeToFrame(Object value) {
        return encoder.toFrame(value, null);
    }

    /**
     * Serializes a value into a contiguous frame signed with {@code key}, in one heap buffer.
     *
     * @param value the value
     * @param key the signing key, at least 16 bytes
     * @return the signed frame, position 0
     */
    public ByteBuffer serializeToFrame(Object value, byte[] key) {
        return encoder.toFrame(value, FrameSignature.checkKey(key));
    }

    /**
     * Deserializes a result whose in-band is an in-band section (starts with a ClassIDHash), for
     * example one that never left the process.
     *
     * @param result the result
     * @return the value
     * @throws DeserializationException if it cannot be read
     */
    public Object deserialize(SerializationResult result) {
        return decoder.readResult(result, decoder.limits(), decoder.trusted());
    }

    /**
     * As {@link #deserialize(SerializationResult)}, with this call's own limits.
     *
     * @param result the result
     * @param limits the limits of this call
     * @return the value
     */
    public Object deserialize(SerializationResult result, Limits limits) {
        return decoder.readResult(result, Objects.requireNonNull(limits, "limits"), decoder.trusted());
    }

    /**
     * Deserializes an in-process result that must have been signed with {@code key}: it never
     * was a frame, so the key it was signed with is compared instead of a trailer.
     *
     * @param result the result
     * @param key the key it must have been signed with
     * @return the value
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

    /**
     * Deserializes the contiguous frame at {@code frame}'s position, signed or not, within the
     * registry's limits. For a direct or memory-mapped buffer nothing is copied: NDArray data,
     * Arrow vectors, OOB-backed values and opaque values are views of the frame, valid while the
     * frame's memory is.
     *
     * @param frame the buffer holding the frame from its position
     * @return the value
     * @throws DeserializationException if the bytes are not a valid frame or value; never another
     *     exception type for bad bytes
     */
    public Object deserialize(ByteBuffer frame) {
        return decoder.readFrame(frame, decoder.limits(), null, decoder.trusted());
    }

    /**
     * As {@link #deserialize(ByteBuffer)}, with this call's own limits.
     *
     * @param frame the buffer holding the frame from its position
     * @param limits the limits of this call
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, Limits limits) {
        return decoder.readFrame(frame, Objects.requireNonNull(limits, "limits"), null, decoder.trusted());
    }

    /**
     * Deserializes a frame that must be signed with {@code key} (docs/FORMAT.md section 4.2). The
     * header is checked up to the total length, then the frame is refused unless it is signed
     * and its HMAC-SHA256 trailer matches (compared in constant time); only then is the rest
     * read and decoded.
     *
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @return the value
     * @throws SignatureException if the frame is unsigned, signed with another key or altered
     * @throws IllegalArgumentException if the key is null or shorter than 16 bytes
     */
    public Object deserialize(ByteBuffer frame, byte[] key) {
        return decoder.readFrame(frame, decoder.limits(), FrameSignature.checkKey(key), decoder.trusted());
    }

    /**
     * As {@link #deserialize(ByteBuffer, byte[])}, with this call's own limits.
     *
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @param limits the limits of this call
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, byte[] key, Limits limits) {
        return decoder.readFrame(frame, Objects.requireNonNull(limits, "limits"), FrameSignature.checkKey(key), decoder.trusted());
    }

    /**
     * As {@link #deserialize(ByteBuffer)}, trusted or untrusted as {@code trusted} says instead of
     * the registry's default (see {@link #trusted()}).
     *
     * @param frame the buffer holding the frame from its position
     * @param trusted false for bytes from a sender you do not trust
     * @return the value
     * @throws UntrustedClassIdException in untrusted mode, for a class ID not on the allow-list
     */
    public Object deserialize(ByteBuffer frame, boolean trusted) {
        return decoder.readFrame(frame, decoder.limits(), null, trusted);
    }

    /**
     * As {@link #deserialize(ByteBuffer, boolean)}, with this call's own limits.
     *
     * @param frame the buffer holding the frame from its position
     * @param limits the limits of this call
     * @param trusted false for bytes from a sender you do not trust
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, Limits limits, boolean trusted) {
        return decoder.readFrame(frame, Objects.requireNonNull(limits, "limits"), null, trusted);
    }

    /**
     * As {@link #deserialize(ByteBuffer, byte[])} (the frame must be signed with {@code key}),
     * trusted or untrusted as {@code trusted} says. The signature tells who wrote the frame, not
     * that it is harmless: read a signed frame in trusted mode only from a writer you trust.
     *
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @param trusted false for bytes from a sender you do not trust
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, byte[] key, boolean trusted) {
        return decoder.readFrame(frame, decoder.limits(), FrameSignature.checkKey(key), trusted);
    }

    /**
     * As {@link #deserialize(SerializationResult)}, trusted or untrusted as {@code trusted} says.
     *
     * @param result the result
     * @param trusted false for values from a sender you do not trust
     * @return the value
     */
    public Object deserialize(SerializationResult result, boolean trusted) {
        return decoder.readResult(result, decoder.limits(), trusted);
    }

    /**
     * As {@link #deserialize(ByteBuffer)}, for a frame expected to hold a {@code T}. A null value
     * ({@code None}) is returned as null unless {@code type} is primitive.
     *
     * @param <T> the expected type
     * @param frame the buffer holding the frame from its position
     * @param type the expected class ({@code int.class} and the like mean their wrapper)
     * @return the value, a {@code T}
     * @throws DeserializationException if the frame cannot be read, or holds something else than
     *     a {@code T} (which is then closed if it is {@link AutoCloseable})
     */
    public <T> T deserialize(ByteBuffer frame, Class<T> type) {
        return TypedValue.as(type, deserialize(frame));
    }

    /**
     * As {@link #deserialize(ByteBuffer, byte[])}, for a signed frame expected to hold a {@code T}.
     *
     * @param <T> the expected type
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @param type the expected class
     * @return the value, a {@code T}
     * @throws DeserializationException if the frame cannot be read, or holds something else than
     *     a {@code T}
     */
    public <T> T deserialize(ByteBuffer frame, byte[] key, Class<T> type) {
        return TypedValue.as(type, deserialize(frame, key));
    }
}
