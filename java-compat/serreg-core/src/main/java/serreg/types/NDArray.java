package serreg.types;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * A numpy ndarray (class ID {@code numpy.ndarray}, docs/FORMAT.md section 6.2): dtype string,
 * shape, order ('C' row-major or 'F' column-major) and the element bytes in that order and in
 * the dtype's byte order.
 *
 * <p>Zero-copy: decoded from a direct or memory-mapped frame, {@link #data()} is a view of the
 * frame's memory. Equality compares dtype, shape, order and bytes.
 */
public final class NDArray {
    private static final Set<String> KINDS = Set.of("b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8",
            "f2", "f4", "f8", "c8", "c16");

    private final String dtype;
    private final long[] shape;
    private final char order;
    private final ByteBuffer data;

    public NDArray(String dtype, long[] shape, char order, ByteBuffer data) {
        this.dtype = checkDtype(dtype);
        this.shape = shape.clone();
        if (order != 'C' && order != 'F') {
            throw new IllegalArgumentException("order is 'C' or 'F', not '" + order + "'");
        }
        this.order = order;
        long expected = Math.multiplyExact(elementCount(this.shape), itemSize(dtype));
        if (data.remaining() != expected) {
            throw new IllegalArgumentException("an ndarray of dtype " + dtype + " and shape " + Arrays.toString(shape)
                    + " needs " + expected + " bytes of data, not " + data.remaining());
        }
        this.data = data.slice();
    }

    /** Checks a dtype string: byte order ({@code '<'}, {@code '>'}, {@code '|'}), kind and item size, as numpy's array interface. */
    public static String checkDtype(String dtype) {
        if (dtype == null || dtype.length() < 3) {
            throw new IllegalArgumentException("invalid dtype " + dtype);
        }
        char byteOrder = dtype.charAt(0);
        String kind = dtype.substring(1);
        boolean single = kind.endsWith("1") && !kind.equals("c16");
        if (!KINDS.contains(kind) || (single ? byteOrder != '|' : byteOrder != '<' && byteOrder != '>')) {
            throw new IllegalArgumentException("unsupported dtype '" + dtype + "' (expected one of "
                    + "|b1 |i1 |u1 or <,> with i2 i4 i8 u2 u4 u8 f2 f4 f8 c8 c16)");
        }
        return dtype;
    }

    public static int itemSize(String dtype) {
        return Integer.parseInt(dtype.substring(2));
    }

    /** The product of the dimensions; ArithmeticException if it overflows a long. */
    public static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    public String dtype() {
        return dtype;
    }

    public long[] shape() {
        return shape.clone();
    }

    public int ndim() {
        return shape.length;
    }

    public char order() {
        return order;
    }

    /** A view of the element bytes (position 0, limit = length); no copy. */
    public ByteBuffer data() {
        return data.duplicate();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NDArray a && a.dtype.equals(dtype) && Arrays.equals(a.shape, shape)
                && a.order == order && a.data.equals(data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dtype, Arrays.hashCode(shape), order, data);
    }

    @Override
    public String toString() {
        return "NDArray(" + dtype + ", " + Arrays.toString(shape) + ", " + order + ", " + Buffers.hex(data, 64) + ")";
    }
}
