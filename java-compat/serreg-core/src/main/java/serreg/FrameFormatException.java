package serreg;

/** The bytes are not a valid contiguous frame (docs/FORMAT.md section 4). */
public class FrameFormatException extends DeserializationException {
    public FrameFormatException(String detail, long offset) {
        super(detail, offset);
    }
}
