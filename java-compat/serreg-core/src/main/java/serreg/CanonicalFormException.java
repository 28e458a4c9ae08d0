package serreg;

/**
 * A value has no canonical form (docs/FORMAT.md, section 9): it would be a pickle
 * ({@link serreg.types.OpaqueValue}), its class has no canonical rule, or it is an Arrow value
 * with a type that has none (dictionary, union, interval, view, run-end, extension).
 */
public class CanonicalFormException extends SerializationException {
    public CanonicalFormException(String message) {
        super(message);
    }
}
