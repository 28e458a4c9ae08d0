package serreg;

/** Base of every error serreg raises. Unchecked, like the Python {@code serreg.SerregError}. */
public class SerregException extends RuntimeException {
    public SerregException(String message) {
        super(message);
    }

    public SerregException(String message, Throwable cause) {
        super(message, cause);
    }
}
