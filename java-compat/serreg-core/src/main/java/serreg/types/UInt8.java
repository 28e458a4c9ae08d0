package serreg.types;

/** numpy.uint8 (class ID {@code numpy.uint8}): an unsigned 8-bit integer, 0..255. */
public record UInt8(short value) {
    public UInt8 {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("uint8 value " + value + " is outside 0..255");
        }
    }

    @Override
    public String toString() {
        return "UInt8(" + value + ")";
    }
}
