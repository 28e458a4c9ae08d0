package serreg;

/** Java code asked an {@link serreg.types.OpaqueValue} for contents that only another language can read. */
public class OpaqueValueException extends SerregException {
    public OpaqueValueException(String message) {
        super(message);
    }
}
