package serreg;

/**
 * A frame or an in-band section could not be read.
 *
 * <p>The message names what failed; {@link #offset()} is the byte offset where it failed, counted
 * from the start of the frame when the failure happened inside one (otherwise from the start of
 * the in-band bytes handed to the serializer), and {@link #classIdPath()} lists the class IDs of
 * the values being read, outermost first.
 */
public class DeserializationException extends SerregException {
    private final String detail;
    private long offset;
    private final java.util.ArrayDeque<String> classIdPath = new java.util.ArrayDeque<>();

    public DeserializationException(String detail, long offset) {
        super(detail);
        this.detail = detail;
        this.offset = offset;
    }

    public DeserializationException(String detail, long offset, Throwable cause) {
        super(detail, cause);
        this.detail = detail;
        this.offset = offset;
    }

    public DeserializationException(String detail) {
        this(detail, -1);
    }

    /** Byte offset of the failure, or -1 when unknown. */
    public long offset() {
        return offset;
    }

    /** Class IDs of the enclosing values, outermost first. */
    public java.util.List<String> classIdPath() {
        return java.util.List.copyOf(classIdPath);
    }

    /** Called by an enclosing reader: the failing bytes start {@code delta} bytes into its own bytes. */
    DeserializationException shiftOffset(long delta) {
        if (offset >= 0) {
            offset += delta;
        }
        return this;
    }

    DeserializationException enclosedIn(String classId) {
        classIdPath.addFirst(classId);
        return this;
    }

    /** What a serializer's own unchecked exception becomes: "serializer failed", under its class ID. */
    static DeserializationException serializerFailed(RuntimeException cause, String classId) {
        return new DeserializationException("serializer failed: " + cause, -1, cause).enclosedIn(classId);
    }

    @Override
    public String getMessage() {
        StringBuilder sb = new StringBuilder(detail);
        if (offset >= 0) {
            sb.append(" (at byte offset ").append(offset).append(')');
        }
        if (!classIdPath.isEmpty()) {
            sb.append(" while reading ").append(String.join(" > ", classIdPath));
        }
        return sb.toString();
    }
}
