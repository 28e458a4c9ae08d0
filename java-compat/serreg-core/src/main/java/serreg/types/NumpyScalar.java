package serreg.types;

import java.util.Map;
import java.util.Objects;

/**
 * A numpy scalar with no plain Java counterpart (docs/FORMAT.md section 7): class ID
 * {@code numpy.<name>}. The value's Java type depends on the name: {@code bool} Boolean,
 * {@code int64} Long, {@code float16} Short (the IEEE binary16 bit pattern), {@code float64}
 * Double, {@code complex64} and {@code complex128} {@link Complex}.
 */
public final class NumpyScalar implements HasClassId {
    private static final Map<String, Class<?>> VALUE_TYPES = Map.of(
            "bool", Boolean.class,
            "int64", Long.class,
            "float16", Short.class,
            "float64", Double.class,
            "complex64", Complex.class,
            "complex128", Complex.class);

    private final String name;
    private final Object value;

    public NumpyScalar(String name, Object value) {
        Class<?> type = VALUE_TYPES.get(name);
        if (type == null) {
            throw new IllegalArgumentException("NumpyScalar holds one of " + VALUE_TYPES.keySet() + ", not '" + name + "'");
        }
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException("numpy." + name + " holds a " + type.getSimpleName() + ", not " + value);
        }
        if (name.equals("complex64")) {
            Complex c = (Complex) value;
            if ((double) (float) c.real() != c.real() && !Double.isNaN(c.real())
                    || (double) (float) c.imag() != c.imag() && !Double.isNaN(c.imag())) {
                throw new IllegalArgumentException("numpy.complex64 parts must be float32 values: " + c);
            }
        }
        this.name = name;
        this.value = value;
    }

    /** The names NumpyScalar can hold. */
    public static java.util.Set<String> names() {
        return VALUE_TYPES.keySet();
    }

    public static NumpyScalar float16Bits(int bits) {
        return new NumpyScalar("float16", (short) bits);
    }

    /** The numpy type name, e.g. {@code "int64"}. */
    public String name() {
        return name;
    }

    public Object value() {
        return value;
    }

    @Override
    public String classId() {
        return "numpy." + name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NumpyScalar s && s.name.equals(name) && s.value.equals(value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, value);
    }

    @Override
    public String toString() {
        return "NumpyScalar(" + name + ", " + value + ")";
    }
}
