package serreg;

import java.util.Map;
import serreg.types.OpaqueValue;

/**
 * The check behind the typed {@code deserialize(frame, Class)}: the decoded value is a {@code T},
 * or a {@link DeserializationException} names what it is instead. Package-private.
 */
final class TypedValue {
    private static final Map<Class<?>, Class<?>> WRAPPERS = Map.of(
            boolean.class, Boolean.class, byte.class, Byte.class, short.class, Short.class, char.class, Character.class,
            int.class, Integer.class, long.class, Long.class, float.class, Float.class, double.class, Double.class);

    private TypedValue() {
    }

    @SuppressWarnings("unchecked")
    static <T> T as(Class<T> type, Object value) {
        Class<?> wanted = WRAPPERS.getOrDefault(type, type);
        if (value == null ? !type.isPrimitive() : wanted.isInstance(value)) {
            return (T) value;
        }
        String found = value == null ? "null (class ID None)"
                : value instanceof OpaqueValue o ? "an OpaqueValue (" + (o.classId() != null ? "class ID " + o.classId()
                        : "unknown ClassIDHash " + o.classIdHash().toHex()) + ")"
                : "a " + value.getClass().getName();
        DeserializationException error = new DeserializationException("the frame holds " + found + ", not a "
                + type.getName() + "; deserialize(frame) without a type returns whatever the frame holds");
        if (value instanceof AutoCloseable closeable) {
            try {
                closeable.close();  // nobody else holds it: free its memory (Arrow data) now
            } catch (Exception e) {
                error.addSuppressed(e);
            }
        }
        throw error;
    }
}
