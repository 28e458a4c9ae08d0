package serreg.bench;

import example.PointSerializer;
import java.nio.ByteBuffer;
import serreg.SerializerRegistry;
import serreg.types.NDArray;

/** serreg: {@code serializeToFrame} to one heap frame and {@code deserialize} from it (views on decode). */
final class SerregCodec implements Codec {
    private final SerializerRegistry registry = new SerializerRegistry();

    SerregCodec() {
        PointSerializer.register(registry);
        registry.registerStruct(StructPoint.class, "bench.Point");
        registry.registerStruct(StructReading.class, "bench.Reading");
        registry.registerStruct(StructLabelPoint.class, "bench.LabelPoint");
    }

    @Override
    public Object adapt(String payload, Object value) {
        if (value instanceof double[] d) {
            return new NDArray("<f8", new long[] {d.length}, 'C', Payloads.littleEndian(d));
        }
        return value;
    }

    @Override
    public byte[] encode(Object value) {
        ByteBuffer frame = registry.serializeToFrame(value);
        if (frame.hasArray() && frame.arrayOffset() == 0 && frame.position() == 0
                && frame.remaining() == frame.array().length) {
            return frame.array();
        }
        byte[] out = new byte[frame.remaining()];
        frame.get(out);
        return out;
    }

    @Override
    public Object decode(byte[] frame) {
        return registry.deserialize(ByteBuffer.wrap(frame));
    }

    @Override
    public Object unwrap(Object decoded) {
        return decoded instanceof NDArray a ? a.data() : decoded;
    }
}
