package serreg.types;

import java.math.BigInteger;

/**
 * numpy.uint64 (class ID {@code numpy.uint64}): an unsigned 64-bit integer held in the bits of a
 * long ({@link #bits()}); {@link #toBigInteger()} gives its value.
 */
public record UInt64(long bits) {
    public static UInt64 of(BigInteger value) {
        if (value.signum() < 0 || value.bitLength() > 64) {
            throw new IllegalArgumentException("uint64 value " + value + " is outside 0..2^64-1");
        }
        return new UInt64(value.longValue());
    }

    public BigInteger toBigInteger() {
        return new BigInteger(Long.toUnsignedString(bits));
    }

    @Override
    public String toString() {
        return "UInt64(" + Long.toUnsignedString(bits) + ")";
    }
}
