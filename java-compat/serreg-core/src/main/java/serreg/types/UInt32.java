package serreg.types;

/** numpy.uint32 (class ID {@code numpy.uint32}): an unsigned 32-bit integer, 0..4294967295L. */
public record UInt32(long value) {
    public UInt32 {
        if (value < 0 || value > 4294967295L) {
            throw new IllegalArgumentException("uint32 value " + value + " is outside 0..4294967295L");
        }
    }

    @Override
    public String toString() {
        return "UInt32(" + value + ")";
    }
}
