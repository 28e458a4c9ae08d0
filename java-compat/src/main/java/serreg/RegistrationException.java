package serreg;

/**
 * A registration was refused: the class ID is already bound to another class, or its
 * ClassIDHash equals the hash of another registered class ID.
 */
public class RegistrationException extends SerregException {
    public RegistrationException(String message) {
        super(message);
    }
}
