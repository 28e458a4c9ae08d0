package serreg;

/**
 * A value has no canonical form (docs/FORMAT.md, section 9): it would be a pickle
 * ({@link serreg.types.OpaqueValue}), its class has no canonical rule, or (for now, in Java)
 * it is an Arrow value.
 */
public class CanonicalFormException extends SerializationException {
    public CanonicalFormException(String message) {
        super(message);
    }
}
