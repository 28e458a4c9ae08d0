package serreg;

/**
 * A serializer whose values msgpack represents natively (nil, bool, int, float64, str, bin,
 * array, map). Inside a msgpack document such values are written as plain msgpack with no
 * ClassIDHash (docs/FORMAT.md section 3); {@link InBandReader} reads them back without asking
 * the registry.
 */
public interface InlineSerializer<T> extends Serializer<T> {
    /** Whether this value is written inline; a false answer makes it an ext 0 nested value. */
    default boolean writesInline(T value) {
        return true;
    }

    /** Writes the value as one plain msgpack value. */
    void writeInline(T value, InBandWriter out);
}
