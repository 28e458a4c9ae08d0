package serreg.types;

import java.util.Objects;

/**
 * A Python {@code Decimal} that {@link java.math.BigDecimal} cannot hold: NaN, sNaN (with their
 * sign and payload), the infinities and negative zeros. Keeps Python's exact text, e.g.
 * {@code "NaN"}, {@code "-Infinity"}, {@code "-0.00"}.
 */
public record SpecialDecimal(String text) {
    public SpecialDecimal {
        Objects.requireNonNull(text);
    }

    @Override
    public String toString() {
        return "SpecialDecimal(" + text + ")";
    }
}
