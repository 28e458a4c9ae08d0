package serreg.types;

/**
 * Python's {@code complex} (class ID {@code complex}). Equality compares bit patterns like
 * {@link Double#equals}: NaN equals NaN, 0.0 differs from -0.0.
 */
public record Complex(double real, double imag) {
    @Override
    public String toString() {
        return "Complex(" + real + ", " + imag + ")";
    }
}
