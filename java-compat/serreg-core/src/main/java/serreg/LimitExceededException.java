package serreg;

/**
 * A frame goes beyond one of the reader's {@link Limits} (size, buffer count, nesting). Mirrors
 * Python's {@code serreg.LimitExceededError}; the message names the limit and how to raise it.
 */
public class LimitExceededException extends DeserializationException {
    public LimitExceededException(String detail, long offset) {
        super(detail, offset);
    }
}
