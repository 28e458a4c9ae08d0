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
        long[] shape = new long[in.readArrayHeader()];
        long count = 1;
        for (int i = 0; i < shape.length; i++) {
            shape[i] = in.readLong(0, Long.MAX_VALUE, "memoryview dimension");
            count = Math.multiplyExact(count, shape[i]);
        }
        ByteBuffer data = in.nextOutOfBand("memoryview");
        Integer size = ITEM_SIZES.get(format);
        if (size != null && data.remaining() != count * size) {
            throw in.error("memoryview of format '" + format + "' and shape " + Arrays.toString(shape) + " needs "
                    + count * size + " bytes but its OOB buffer has " + data.remaining(), at);
        }
        return new PyMemoryView(format, shape, data);
    }
}
