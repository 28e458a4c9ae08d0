package serreg.bench;

/**
 * The element of the {@code structsFloat1k} payload: a struct with a float64, a float32 and a bool
 * field beside an int64, registered as {@code bench.Reading} with {@code registerStruct} (serreg)
 * and {@code register} (Fory), so the float and bool columns of an ext 2 list are measured.
 *
 * @param id the reading's number
 * @param value a float64
 * @param weight a float32
 * @param valid a bool
 */
public record StructReading(long id, double value, float weight, boolean valid) {
}
