package serreg.types;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Python's {@code memoryview} (class ID {@code memoryview}): a struct format character, a shape
 * and the bytes in C order. Decoded from a frame, {@link #data()} is a view of the frame.
 */
public final class PyMemoryView {
    private final String format;
    private final long[] shape;
    private final ByteBuffer data;

    public PyMemoryView(String format, long[] shape, ByteBuffer data) {
        this.format = Objects.requireNonNull(format);
        this.shape = shape.clone();
        this.data = Buffers.view(data);
    }

    /** Python struct format, e.g. {@code "B"}, {@code "i"}, {@code "d"}. */
    public String format() {
        return format;
    }

    public long[] shape() {
        return shape.clone();
    }

    public ByteBuffer data() {
        return data.duplicate();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PyMemoryView m && m.format.equals(format) && Arrays.equals(m.shape, shape) && m.data.equals(data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(format, Arrays.hashCode(shape), data);
    }

    @Override
    public String toString() {
        return "PyMemoryView(" + format + ", " + Arrays.toString(shape) + ", " + Buffers.hex(data, 64) + ")";
    }
}
