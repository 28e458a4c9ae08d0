package serreg.types;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A numpy masked array (class ID {@code numpy.ma.MaskedArray}, docs/FORMAT.md section 6.2.2):
 * the data, the mask (true where a value is masked; null for numpy's {@code nomask}), the fill
 * value (one item of the data's dtype, in its byte order; null for numpy's default) and the
 * hard-mask flag.
 */
public final class MaskedArray {
    private final NDArray data;
    private final NDArray mask;
    private final ByteBuffer fillValue;
    private final boolean hardMask;

    public MaskedArray(NDArray data, NDArray mask, ByteBuffer fillValue, boolean hardMask) {
        this.data = Objects.requireNonNull(data, "data");
        if (mask != null && !Arrays.equals(mask.shape(), data.shape())) {
            throw new IllegalArgumentException("a mask of shape " + Arrays.toString(mask.shape())
                    + " does not fit data of shape " + Arrays.toString(data.shape()));
        }
        if (mask != null && !data.descr().isStructured() && !mask.dtype().equals("|b1")) {
            throw new IllegalArgumentException("the mask of a plain array is |b1, not " + mask.dtype());
        }
        if (fillValue != null && fillValue.remaining() != data.descr().itemSize()) {
            throw new IllegalArgumentException("the fill value has " + fillValue.remaining() + " bytes, not one "
                    + data.dtype() + " item");
        }
        this.mask = mask;
        this.fillValue = fillValue == null ? null : fillValue.slice();
        this.hardMask = hardMask;
    }

    public NDArray data() {
        return data;
    }

    /** The mask, or null when nothing is masked (numpy's {@code nomask}). */
    public NDArray mask() {
        return mask;
    }

    /** One item of the data's dtype, in the dtype's byte order; null for numpy's default. */
    public ByteBuffer fillValue() {
        return fillValue == null ? null : fillValue.duplicate().order(data.descr().byteOrder());
    }

    public boolean hardMask() {
        return hardMask;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MaskedArray m && m.data.equals(data) && Objects.equals(m.mask, mask)
                && Objects.equals(m.fillValue, fillValue) && m.hardMask == hardMask;
    }

    @Override
    public int hashCode() {
        return Objects.hash(data, mask, fillValue, hardMask);
    }

    @Override
    public String toString() {
        return "MaskedArray(" + data + ", mask " + mask + (hardMask ? ", hard" : "") + ")";
    }
}
