package serreg.bench;

/**
 * The element of the {@code pointStructs1k} payload: the {@code points1k} shape (two float64
 * fields and a str) as a struct, registered as {@code bench.LabelPoint} with {@code registerStruct}
 * (serreg) and {@code register} (Fory), so a str column of an ext 2 list is measured.
 *
 * @param x first coordinate
 * @param y second coordinate
 * @param label a short text
 */
public record StructLabelPoint(double x, double y, String label) {
}
