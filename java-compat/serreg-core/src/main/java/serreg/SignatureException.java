package serreg;

/**
 * A reader given a key refused a frame: it is not signed, or it was signed with another key or
 * altered after signing (docs/FORMAT.md section 4.2). Thrown before any in-band byte is decoded.
 * Mirrors Python's {@code serreg.SignatureError}.
 */
public class SignatureException extends DeserializationException {
    public SignatureException(String detail, long offset) {
        super(detail, offset);
    }
}
