package serreg.bench;

/**
 * The struct payload's element (issue 14): three int64 fields, registered as the struct
 * {@code bench.Point} with {@code registerStruct} (serreg) and {@code register} (Fory).
 *
 * @param x first coordinate
 * @param y second coordinate
 * @param z third coordinate
 */
public record StructPoint(long x, long y, long z) {
}
