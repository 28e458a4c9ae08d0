package serreg.numpy;

import java.nio.ByteBuffer;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.types.NDArray;

/**
 * Class ID {@code numpy.ndarray} (docs/FORMAT.md section 6.2): array [dtype, shape, order] plus
 * one OOB buffer with the element bytes. Reading is zero-copy: the NDArray's data is the OOB
 * buffer, a view of the frame. Writing hands the data buffer to the frame writer by reference.
 */
public final class NDArraySerializer extends MsgpackSerializer<NDArray> {
    public NDArraySerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(NDArray value, InBandWriter out) {
        out.writeArrayHeader(3).writeString(value.dtype());
        long[] shape = value.shape();
        out.writeArrayHeader(shape.length);
        for (long d : shape) {
            out.writeLong(d);
        }
        out.writeString(String.valueOf(value.order()));
        out.addOutOfBand(value.data());
    }

    /** numpy's own bound on dimensions (NPY_MAXDIMS). */
    public static final int MAX_DIMENSIONS = 64;

    @Override
    protected NDArray read(InBandReader in) {
        long at = in.offset();
        in.readArrayHeader(3, "ndarray in-band");
        long dtypeAt = in.offset();
        String dtype = in.readString();
        try {
            NDArray.checkDtype(dtype);
        } catch (IllegalArgumentException e) {
            throw in.error("invalid ndarray dtype: " + e.getMessage(), dtypeAt);
        }
        long shapeAt = in.offset();
        int ndim = in.readArrayHeader();
        if (ndim > MAX_DIMENSIONS) {
            throw in.error("ndarray shape has " + ndim + " dimensions; numpy allows at most " + MAX_DIMENSIONS, shapeAt);
        }
        long[] shape = new long[ndim];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = in.readLong(0, Long.MAX_VALUE, "ndarray dimension");
        }
        String order = in.readString();
        if (!order.equals("C") && !order.equals("F")) {
            throw in.error("ndarray order must be \"C\" or \"F\", not \"" + order + "\"", at);
        }
        ByteBuffer data = in.nextOutOfBand("numpy.ndarray data");
        try {
            return new NDArray(dtype, shape, order.charAt(0), data);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw in.error("invalid ndarray: " + e.getMessage(), at);
        }
    }
}
