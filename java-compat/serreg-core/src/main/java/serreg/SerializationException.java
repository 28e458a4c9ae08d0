package serreg;

/** A value could not be serialized (no serializer for its class, or a value the wire format cannot carry). */
public class SerializationException extends SerregException {
    public SerializationException(String message) {
        super(message);
    }

    public SerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
