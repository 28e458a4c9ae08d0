package serreg;

/**
 * A set of serializers that registers itself: the Java twin of Python's {@code serreg.serializers}
 * entry points. Modules are found with {@link java.util.ServiceLoader}: a jar that provides one
 * lists its class in {@code META-INF/services/serreg.SerializerModule} (and, on the module path,
 * {@code provides serreg.SerializerModule with ...}). Every {@code new SerializerRegistry()}
 * registers every module found, so the registry names none of them: the standard types
 * ({@code serreg.standard.StandardSerializers}) and numpy ({@code serreg.numpy.NumpySerializers})
 * come with serreg-core, Arrow ({@code serreg.arrow.ArrowSerializers}) only when serreg-arrow is
 * on the class path.
 *
 * <p>An implementation has a public no-argument constructor and registers with
 * {@link SerializerRegistry#registerSerializer}; it must be cheap (no heavy initialisation
 * before one of its values is actually serialized or read).
 */
public interface SerializerModule {
    /**
     * Registers this module's serializers on {@code registry}.
     *
     * @param registry the registry being filled
     */
    void register(SerializerRegistry registry);

    /**
     * A name for messages (for example when the module fails to register).
     *
     * @return by default, the implementing class's name
     */
    default String name() {
        return getClass().getName();
    }

    /**
     * Modules register in ascending order (then by {@link #name()}): when two bind the same Java
     * class, the one registered later writes it. serreg's own modules use negative orders (the
     * standard types first), so a module with the default order may rebind their classes.
     *
     * @return this module's place in the order; 0 by default
     */
    default int order() {
        return 0;
    }
}
