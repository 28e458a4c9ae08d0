package serreg.standard;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.types.PyMemoryView;

/**
 * Class ID {@code memoryview}: {@link PyMemoryView}, array [format, shape] plus one OOB buffer
 * with the bytes in C order. For the struct characters listed here the buffer length is checked
 * against the shape (sizes as on x86-64/aarch64 Linux).
 */
public final class MemoryViewSerializer extends MsgpackSerializer<PyMemoryView> {
    private static final Map<String, Integer> ITEM_SIZES = Map.ofEntries(
            Map.entry("B", 1), Map.entry("b", 1), Map.entry("c", 1), Map.entry("?", 1),
            Map.entry("h", 2), Map.entry("H", 2), Map.entry("e", 2),
            Map.entry("i", 4), Map.entry("I", 4), Map.entry("f", 4),
            Map.entry("l", 8), Map.entry("L", 8), Map.entry("q", 8), Map.entry("Q", 8),
            Map.entry("n", 8), Map.entry("N", 8), Map.entry("d", 8), Map.entry("P", 8));

    /** CPython's bound on memoryview dimensions (PyBUF_MAX_NDIM). */
    private static final int MAX_DIMENSIONS = 64;

    public MemoryViewSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(PyMemoryView value, InBandWriter out) {
        out.writeArrayHeader(2).writeString(value.format());
        long[] shape = value.shape();
        out.writeArrayHeader(shape.length);
        for (long d : shape) {
            out.writeLong(d);
        }
        out.addOutOfBand(value.data());
    }

    @Override
    protected PyMemoryView read(InBandReader in) {
        in.readArrayHeader(2, "memoryview in-band");
        String format = in.readString();
        long at = in.offset();
        int ndim = in.readArrayHeader();
        if (ndim > MAX_DIMENSIONS) {
            throw in.error("memoryview shape has " + ndim + " dimensions; Python allows at most " + MAX_DIMENSIONS, at);
        }
        long[] shape = new long[ndim];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = in.readLong(0, Long.MAX_VALUE, "memoryview dimension");
        }
        ByteBuffer data = in.nextOutOfBand("memoryview");
        Integer size = ITEM_SIZES.get(format);
        long needed;
        try {
            long count = 1;
            for (long d : shape) {
                count = Math.multiplyExact(count, d);
            }
            needed = Math.multiplyExact(count, size == null ? 1 : size);
        } catch (ArithmeticException e) {
            throw in.error("memoryview shape " + Arrays.toString(shape) + " has more elements than a long can count", at);
        }
        if (size != null && data.remaining() != needed) {
            throw in.error("memoryview of format '" + format + "' and shape " + Arrays.toString(shape) + " needs "
                    + needed + " bytes but its OOB buffer has " + data.remaining(), at);
        }
        return new PyMemoryView(format, shape, data);
    }
}
