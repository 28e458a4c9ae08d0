package serreg.numpy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.msgpack.value.ValueType;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.types.DType;
import serreg.types.NDArray;

/**
 * Class ID {@code numpy.ndarray} (docs/FORMAT.md section 6.2): array [dtype, shape, order], or
 * [dtype, shape, order, strides, read_only], plus one OOB buffer with the element bytes. The
 * dtype is a string or a structured dtype's [itemsize, fields, aligned] (section 6.2.1). Reading
 * is zero-copy: the NDArray's data is the OOB buffer, a view of the frame. Writing hands the data
 * buffer to the frame writer by reference.
 */
public final class NDArraySerializer extends MsgpackSerializer<NDArray> {
    public NDArraySerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** numpy's own bound on dimensions (NPY_MAXDIMS). */
    public static final int MAX_DIMENSIONS = 64;

    @Override
    protected void write(NDArray value, InBandWriter out) {
        writeArray(value, out);
    }

    @Override
    protected NDArray read(InBandReader in) {
        return readArray(in);
    }

    /** Writes an array's header (section 6.2) and hands its data to the frame as the next OOB buffer. */
    public static void writeArray(NDArray value, InBandWriter out) {
        boolean extended = value.hasExplicitStrides() || value.isReadOnly();
        out.writeArrayHeader(extended ? 5 : 3);
        writeDtype(value.descr(), out);
        long[] shape = value.shape();
        out.writeArrayHeader(shape.length);
        for (long d : shape) {
            out.writeLong(d);
        }
        out.writeString(String.valueOf(value.order()));
        if (extended) {
            if (value.hasExplicitStrides()) {
                long[] strides = value.strides();
                out.writeArrayHeader(strides.length);
                for (long s : strides) {
                    out.writeLong(s);
                }
            } else {
                out.writeNil();
            }
            out.writeBoolean(value.isReadOnly());
        }
        out.addOutOfBand(value.data());
    }

    /** Writes a dtype's in-band description (section 6.2.1). */
    public static void writeDtype(DType dtype, InBandWriter out) {
        if (!dtype.isStructured()) {
            out.writeString(dtype.toString());
            return;
        }
        out.writeArrayHeader(3).writeLong(dtype.itemSize());
        out.writeArrayHeader(dtype.fields().size());
        for (DType.Field f : dtype.fields()) {
            out.writeArrayHeader(5).writeString(f.name()).writeLong(f.offset());
            writeDtype(f.dtype(), out);
            long[] shape = f.shape();
            out.writeArrayHeader(shape.length);
            for (long d : shape) {
                out.writeLong(d);
            }
            if (f.title() == null) {
                out.writeNil();
            } else {
                out.writeString(f.title());
            }
        }
        out.writeBoolean(dtype.aligned());
    }

    /** Reads an array's header (section 6.2) and takes its data from the next OOB buffer. */
    public static NDArray readArray(InBandReader in) {
        long at = in.offset();
        int items = in.readArrayHeader();
        if (items != 3 && items != 5) {
            throw in.error("ndarray in-band must be [dtype, shape, order] or [dtype, shape, order, strides, read_only],"
                    + " not an array of " + items, at);
        }
        DType dtype = readDtype(in, 0, "ndarray dtype");
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
        long[] strides = null;
        boolean readOnly = false;
        if (items == 5) {
            long stridesAt = in.offset();
            if (!in.tryReadNil()) {
                int n = in.readArrayHeader();
                if (n != ndim) {
                    throw in.error("ndarray has " + n + " strides for " + ndim + " dimensions", stridesAt);
                }
                strides = new long[n];
                for (int i = 0; i < n; i++) {
                    strides[i] = in.readLong(0, 1L << 62, "ndarray stride");
                }
            }
            readOnly = in.readBoolean();
        }
        ByteBuffer data = in.nextOutOfBand("numpy.ndarray data");
        try {
            return new NDArray(dtype, shape, order.charAt(0), strides, readOnly, data);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw in.error("invalid ndarray: " + e.getMessage(), at);
        }
    }

    /** Reads a dtype's in-band description; {@code where} names it (and the field path) in errors. */
    public static DType readDtype(InBandReader in, int depth, String where) {
        long at = in.offset();
        if (in.nextFormat().getValueType() == ValueType.STRING) {
            String text = in.readString();
            try {
                return DType.of(text);
            } catch (IllegalArgumentException e) {
                throw in.error(where + ": " + e.getMessage(), at);
            }
        }
        if (depth >= DType.MAX_NESTING) {
            throw in.error(where + ": structured dtypes nested more than " + DType.MAX_NESTING + " levels", at);
        }
        in.readArrayHeader(3, where + " (a string or [itemsize, fields, aligned])");
        long itemSize = in.readLong(1, DType.MAX_ITEMSIZE, where + " item size");
        int count = in.readArrayHeader();
        List<DType.Field> fields = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            in.readArrayHeader(5, where + " field (array [name, offset, dtype, shape, title])");
            String name = in.readString();
            String path = where + ", field '" + name + "'";
            long offset = in.readLong(0, DType.MAX_ITEMSIZE, path + " offset");
            DType inner = readDtype(in, depth + 1, path);
            long shapeAt = in.offset();
            int ndim = in.readArrayHeader();
            if (ndim > 32) {
                throw in.error(path + ": a sub-array has at most 32 dimensions", shapeAt);
            }
            long[] shape = new long[ndim];
            for (int d = 0; d < ndim; d++) {
                shape[d] = in.readLong(0, DType.MAX_ITEMSIZE, path + " sub-array dimension");
            }
            String title = in.tryReadNil() ? null : in.readString();
            fields.add(new DType.Field(name, title, (int) offset, inner, shape));
        }
        boolean aligned = in.readBoolean();
        try {
            return DType.structured((int) itemSize, fields, aligned);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw in.error(where + ": " + e.getMessage(), at);
        }
    }
}
