package serreg;

import java.nio.ByteBuffer;
import java.util.Iterator;

/**
 * Base for serializers whose in-band is one msgpack document (every standard serializer but
 * the fallback). Subclasses write and read through {@link InBandWriter} / {@link InBandReader},
 * which handle nested values (ext 0) and OOB buffers.
 */
public abstract class MsgpackSerializer<T> implements Serializer<T> {
    protected final SerializerRegistry registry;

    protected MsgpackSerializer(SerializerRegistry registry) {
        this.registry = registry;
    }

    /** Writes the value as one msgpack value, adding any OOB buffers to {@code out}. */
    protected abstract void write(T value, InBandWriter out);

    /** Reads the value written by {@link #write}. */
    protected abstract T read(InBandReader in);

    /**
     * Final: inside a frame the registry calls {@link #write} and {@link #read} directly on the
     * frame's writer and reader (no intermediate arrays), so these two must be exactly that.
     */
    @Override
    public final SerializationResult serialize(T value) {
        InBandWriter out = InBandWriter.pooled(registry);
        try {
            write(value, out);
            return out.finish();
        } finally {
            out.release();
        }
    }

    @Override
    public final T deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
        InBandReader in = new InBandReader(registry, inBand, outOfBand);
        T value = read(in);
        in.expectEnd();
        return value;
    }
}
