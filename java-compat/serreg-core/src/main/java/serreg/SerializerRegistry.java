package serreg;

import java.nio.ByteBuffer;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import serreg.types.HasClassId;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;
import serreg.wire.FrameSignature;

/**
 * Maps class IDs to serializers and Java classes to class IDs; serializes values to
 * {@link SerializationResult}s and frames and back (docs/FORMAT.md). A thin face over
 * package-private parts: the registration table, the value encoder and the value decoder. The
 * reading half of this face (the deserialize calls and their settings: limits, trust) is declared
 * in a package-private superclass; its methods are this class's.
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
public final class SerializerRegistry extends RegistryDecoder {
    /** The struct support (package serreg.structs), found once through {@link java.util.ServiceLoader}. */
    static final StructSupport.Provider STRUCTS = java.util.ServiceLoader
            .load(StructSupport.Provider.class, SerializerRegistry.class.getClassLoader())
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("serreg-core is incomplete: no " + StructSupport.Provider.class.getName()
                    + " in META-INF/services"));

    private static volatile SerializerRegistry defaultRegistry;

    private final RegistrationTable table;
    private final ValueEncoder encoder;
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
        this(new RegistrationTable(hasher));
    }

    private SerializerRegistry(RegistrationTable table) {
        super(new ValueDecoder(table));
        this.table = table;
        this.encoder = new ValueEncoder(table, this);
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

    /** The part {@link InBandWriter} writes nested values with. */
    ValueEncoder encoder() {
        return encoder;
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
}
