package serreg;

/**
 * The struct support of a registry (docs/FORMAT.md section 10), implemented in {@code serreg.structs}
 * and found through {@link java.util.ServiceLoader}, so that this package names none of its classes
 * (the twin of the way {@link SerializerModule}s are found).
 */
public interface StructSupport {
    /**
     * Registers {@code cls} as the struct {@code classId} (see {@link SerializerRegistry#registerStruct}).
     *
     * @param cls the class
     * @param classId its class ID
     */
    void register(Class<?> cls, String classId);

    /** Makes the struct support of a registry and reads struct instances (msgpack ext 1). */
    interface Provider {
        /**
         * The struct support of {@code registry}.
         *
         * @param registry the registry it serves
         * @return its struct support
         */
        StructSupport create(SerializerRegistry registry);

        /**
         * Reads one ext 1 payload (an instance array) from {@code in}, through the enclosing struct table.
         *
         * @param in a reader bounded to the payload
         * @return the instance
         */
        Object readInstance(InBandReader in);
    }
}
