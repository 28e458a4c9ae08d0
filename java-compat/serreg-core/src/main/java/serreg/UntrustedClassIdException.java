package serreg;

/**
 * An untrusted deserialize met a class ID it does not decode: the pickle fallback, a dataclass, or
 * any class ID outside the registry's allow-list (docs/FORMAT.md section 4.4). Nothing of the
 * value was read. Mirrors Python's {@code serreg.UntrustedClassIDError}; the message says why and
 * how to allow the class ID.
 */
public class UntrustedClassIdException extends DeserializationException {
    private final String classId;

    public UntrustedClassIdException(String detail, String classId, long offset) {
        super(detail, offset);
        this.classId = classId;
    }

    /** The refused class ID, or null when no serializer is registered under its ClassIDHash. */
    public String classId() {
        return classId;
    }
}
