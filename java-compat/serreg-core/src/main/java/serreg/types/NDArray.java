package serreg.types;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A numpy ndarray (class ID {@code numpy.ndarray}, docs/FORMAT.md section 6.2): a {@link DType},
 * a shape, a layout and the element bytes in the dtype's byte order.
 *
 * <p>The layout is an order ('C' row-major or 'F' column-major, packed) or, for arrays that
 * repeat memory (numpy's broadcast arrays), explicit byte strides: the element at index
 * (i0, i1, ...) starts at byte {@code i0*s0 + i1*s1 + ...} of {@link #data()}. A read-only
 * array's {@link #data()} is a read-only buffer, and it is written back read-only.
 *
 * <p>Values: {@code data().getDouble(byteOffset(i, j))} reads element (i, j) of a float64 array
 * of either byte order ({@link #data()} is in the dtype's order). A structured array's
 * {@link #field(String)} is the view of one field, with the parent's strides.
 *
 * <p>Zero-copy: decoded from a direct or memory-mapped frame, {@link #data()} is a view of the
 * frame's memory. Equality compares dtype, shape, layout, the read-only flag and bytes.
 */
public final class NDArray {
    private final DType dtype;
    private final long[] shape;
    private final char order;
    private final long[] strides;
    private final boolean readOnly;
    private final ByteBuffer data;

    /** A packed array of a plain dtype string ({@link DType#of}), writable. */
    public NDArray(String dtype, long[] shape, char order, ByteBuffer data) {
        this(DType.of(dtype), shape, order, null, false, data);
    }

    /** A packed array, writable. */
    public NDArray(DType dtype, long[] shape, char order, ByteBuffer data) {
        this(dtype, shape, order, null, false, data);
    }

    /**
     * Any array of section 6.2.
     *
     * @param dtype the element dtype
     * @param shape the dimensions
     * @param order 'C' or 'F' (packed layouts); 'C' when {@code strides} are given
     * @param strides null for a packed layout, or one byte stride (at least 0) per dimension
     * @param readOnly whether the array is read-only
     * @param data exactly the bytes the layout needs, from its position to its limit
     */
    public NDArray(DType dtype, long[] shape, char order, long[] strides, boolean readOnly, ByteBuffer data) {
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.shape = shape.clone();
        if (order != 'C' && order != 'F' || strides != null && order != 'C') {
            throw new IllegalArgumentException("order is 'C' or 'F' ('C' with strides), not '" + order + "'");
        }
        this.order = order;
        long count = elementCount(this.shape);
        long expected;
        if (strides == null) {
            this.strides = null;
            expected = Math.multiplyExact(count, dtype.itemSize());
        } else {
            this.strides = strides.clone();
            if (strides.length != shape.length) {
                throw new IllegalArgumentException("strides " + Arrays.toString(strides) + " do not match shape " + Arrays.toString(shape));
            }
            expected = count == 0 ? 0 : dtype.itemSize();
            for (int d = 0; d < shape.length; d++) {
                if (strides[d] < 0) {
                    throw new IllegalArgumentException("negative stride in " + Arrays.toString(strides));
                }
                expected = Math.addExact(expected, Math.multiplyExact(count == 0 ? 0 : shape[d] - 1, strides[d]));
            }
        }
        if (data.remaining() != expected) {
            throw new IllegalArgumentException("an ndarray of dtype " + dtype + ", shape " + Arrays.toString(shape)
                    + (strides == null ? "" : " and strides " + Arrays.toString(strides))
                    + " needs " + expected + " bytes of data, not " + data.remaining());
        }
        this.readOnly = readOnly;
        this.data = data.slice();
    }

    /** Checks a plain dtype string (section 6.2.1); IllegalArgumentException if it is not one. */
    public static String checkDtype(String dtype) {
        DType.of(dtype);
        return dtype;
    }

    /** Bytes per element of a plain dtype string. */
    public static int itemSize(String dtype) {
        return DType.of(dtype).itemSize();
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

    /** The dtype as written in the frame: a plain dtype's string, or a structured dtype's description. */
    public String dtype() {
        return dtype.toString();
    }

    /** The dtype. */
    public DType descr() {
        return dtype;
    }

    public long[] shape() {
        return shape.clone();
    }

    public int ndim() {
        return shape.length;
    }

    /** 'C' or 'F' for a packed array; 'C' for one with explicit strides. */
    public char order() {
        return order;
    }

    /** True if the layout is given by explicit strides ({@link #strides()} then returns them). */
    public boolean hasExplicitStrides() {
        return strides != null;
    }

    /** The byte stride of each dimension (computed from the order for a packed array). */
    public long[] strides() {
        if (strides != null) {
            return strides.clone();
        }
        long[] out = new long[shape.length];
        long step = dtype.itemSize();
        for (int k = 0; k < shape.length; k++) {
            int d = order == 'C' ? shape.length - 1 - k : k;
            out[d] = step;
            step *= Math.max(shape[d], 1);
        }
        return out;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    /** Where the element at {@code index} starts in {@link #data()}; IndexOutOfBoundsException outside the shape. */
    public int byteOffset(long... index) {
        if (index.length != shape.length) {
            throw new IndexOutOfBoundsException("an index of " + shape.length + " dimensions is needed, not " + index.length);
        }
        long[] s = strides();
        long at = 0;
        for (int d = 0; d < shape.length; d++) {
            if (index[d] < 0 || index[d] >= shape[d]) {
                throw new IndexOutOfBoundsException("index " + Arrays.toString(index) + " is outside shape " + Arrays.toString(shape));
            }
            at += index[d] * s[d];
        }
        return Math.toIntExact(at);
    }

    /**
     * A view of the element bytes (position 0, limit = length), in the dtype's byte order
     * ({@link DType#byteOrder()}), read-only for a read-only array; no copy.
     */
    public ByteBuffer data() {
        ByteBuffer view = readOnly ? data.asReadOnlyBuffer() : data.duplicate();
        return view.order(dtype.byteOrder());
    }

    /**
     * The view of field {@code name} (or the field titled so) of a structured array: the
     * field's dtype, the shape followed by the field's sub-array shape, this array's strides;
     * no copy.
     */
    public NDArray field(String name) {
        DType.Field f = dtype.field(name);
        long[] sub = f.shape();
        long[] outer = strides();
        long[] fullShape = Arrays.copyOf(shape, shape.length + sub.length);
        long[] fullStrides = Arrays.copyOf(outer, shape.length + sub.length);
        long step = f.dtype().itemSize();
        for (int k = sub.length - 1; k >= 0; k--) {
            fullShape[shape.length + k] = sub[k];
            fullStrides[shape.length + k] = step;
            step *= sub[k];
        }
        long needed = elementCount(fullShape) == 0 ? 0 : f.dtype().itemSize();
        for (int d = 0; d < fullShape.length && needed > 0; d++) {
            needed += (fullShape[d] - 1) * fullStrides[d];
        }
        ByteBuffer bytes = data.duplicate();
        int from = needed == 0 ? 0 : f.offset();
        bytes.position(from).limit(Math.toIntExact(from + needed));
        return new NDArray(f.dtype(), fullShape, 'C', fullStrides, readOnly, bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NDArray a && a.dtype.equals(dtype) && Arrays.equals(a.shape, shape)
                && a.order == order && Arrays.equals(a.strides, strides) && a.readOnly == readOnly && a.data.equals(data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dtype, Arrays.hashCode(shape), order, Arrays.hashCode(strides), readOnly, data);
    }

    @Override
    public String toString() {
        return "NDArray(" + dtype + ", " + Arrays.toString(shape) + ", "
                + (strides == null ? String.valueOf(order) : "strides " + Arrays.toString(strides))
                + (readOnly ? ", read-only" : "") + ", " + Buffers.hex(data, 64) + ")";
    }
}
