package serreg.types;

import java.util.Objects;
import java.util.Set;

/**
 * A numpy scalar of a kind without a Java counterpart (docs/FORMAT.md section 6.3): class ID
 * {@code numpy.datetime64}, {@code numpy.timedelta64}, {@code numpy.bytes_}, {@code numpy.str_}
 * or {@code numpy.void}, carried as the 0-d {@link NDArray} that holds it (its dtype gives the
 * unit, the length or the fields).
 *
 * @param name the numpy type name ({@code "datetime64"}, ...)
 * @param value the 0-d array holding the scalar
 */
public record NumpyGenericScalar(String name, NDArray value) implements HasClassId {
    private static final Set<String> NAMES = Set.of("datetime64", "timedelta64", "bytes_", "str_", "void");

    public NumpyGenericScalar {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("no numpy scalar type '" + name + "' is carried as a 0-d array");
        }
        Objects.requireNonNull(value, "value");
        char kind = value.descr().kind();
        char expected = switch (name) {
            case "datetime64" -> 'M';
            case "timedelta64" -> 'm';
            case "bytes_" -> 'S';
            case "str_" -> 'U';
            default -> 'V';
        };
        if (value.ndim() != 0 || kind != expected) {
            throw new IllegalArgumentException("numpy." + name + " needs a 0-d array of kind " + expected + ", not "
                    + value.dtype() + " of " + value.ndim() + " dimensions");
        }
    }

    @Override
    public String classId() {
        return "numpy." + name;
    }
}
