package serreg;

/** No serializer is registered under the class ID that was asked for. */
public class UnknownClassIdException extends SerregException {
    private final String classId;

    public UnknownClassIdException(String classId) {
        super("no serializer is registered under class ID '" + classId + "'");
        this.classId = classId;
    }

    public String classId() {
        return classId;
    }
}
