package serreg.types;

/** numpy.uint16 (class ID {@code numpy.uint16}): an unsigned 16-bit integer, 0..65535. */
public record UInt16(int value) {
    public UInt16 {
        if (value < 0 || value > 65535) {
            throw new IllegalArgumentException("uint16 value " + value + " is outside 0..65535");
        }
    }

    @Override
    public String toString() {
        return "UInt16(" + value + ")";
    }
}
