package serreg;

/**
 * A serializer whose values msgpack represents natively (nil, bool, int, float64, str, bin,
 * array, map). Inside a msgpack document such values are written as plain msgpack with no
 * ClassIDHash (docs/FORMAT.md section 3); {@link InBandReader} reads them back without asking
 * the registry.
 */
public interface InlineSerializer<T> extends Serializer<T> {
    /**
     * The writer's own encodings a serializer can declare as its inline form (see
     * {@link #inlineForm}), each for the one class the writer then writes by itself.
     */
    enum Form {
        /** None: the writer asks {@link #writesInline} and calls {@link #writeInline} for each value. */
        CALL,
        /** null as {@link InBandWriter#writeNil}. */
        NIL,
        /** a {@code Boolean} as {@link InBandWriter#writeBoolean}. */
        BOOL,
        /** a {@code Long} as {@link InBandWriter#writeLong} (values of other classes: CALL). */
        INT,
        /** a {@code Double} as {@link InBandWriter#writeDouble}. */
        FLOAT,
        /** a {@code String} as {@link InBandWriter#writeString}. */
        STR,
        /** a {@code java.util.List} as an array header, then {@link InBandWriter#writeValue} of each item. */
        ARRAY,
        /** a {@code java.util.Map} as a map header, then {@link InBandWriter#writeValue} of each key and value. */
        MAP
    }

    /** Whether this value is written inline; a false answer makes it an ext 0 nested value. */
    default boolean writesInline(T value) {
        return true;
    }

    /** Writes the value as one plain msgpack value. */
    void writeInline(T value, InBandWriter out);

    /**
     * Which of the writer's own encodings {@link #writeInline} is for values of that form's class,
     * asked once at registration: the writer then writes such values itself, without calling
     * {@link #writesInline} and {@link #writeInline} for each (a value of another class still goes
     * through them). Declare a form only when {@code writeInline} writes exactly that.
     *
     * @return the form, {@link Form#CALL} (the default) for none
     */
    default Form inlineForm() {
        return Form.CALL;
    }
}
