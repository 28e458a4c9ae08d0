package serreg;

/**
 * A registration was refused: the class ID is already bound to another class, or its
 * ClassIDHash equals the hash of another registered class ID, or a {@link SerializerModule} could
 * not be loaded or failed to register.
 */
public class RegistrationException extends SerregException {
    /**
     * A refusal.
     *
     * @param message what was refused and why
     */
    public RegistrationException(String message) {
        super(message);
    }

    /**
     * A failure caused by another exception.
     *
     * @param message what failed
     * @param cause the exception that made it fail
     */
    public RegistrationException(String message, Throwable cause) {
        super(message, cause);
    }
}
