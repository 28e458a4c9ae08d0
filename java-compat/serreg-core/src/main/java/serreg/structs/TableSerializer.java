package serreg.structs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.List;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.SerializationResult;
import serreg.Serializer;
import serreg.SerializerRegistry;
import serreg.wire.ClassIdHash;

/**
 * {@code serreg.structs} (docs/FORMAT.md section 10.1): reads a frame's struct table, then the
 * value's own section after it with the table in scope. Never written on its own: the registry
 * puts the table in front of a value that holds structs.
 */
public final class TableSerializer implements Serializer<Object> {
    /** The type {@code serreg.structs} is bound to; no value is ever of this type. */
    public static final class Marker {
        private Marker() {
        }
    }

    private final SerializerRegistry registry;

    /**
     * The table reader of {@code registry}.
     *
     * @param registry the registry
     */
    public TableSerializer(SerializerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public SerializationResult serialize(Object value) {
        throw new UnsupportedOperationException("serreg.structs is written by the registry around a value");
    }

    /**
     * Reads the table and the value after it.
     *
     * @param inBand this section's in-band (table + inner section)
     * @param outOfBand the frame's OOB buffers
     * @return the value
     */
    @Override
    public Object deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
        ByteBuffer bytes = inBand.slice();
        InBandReader in = new InBandReader(registry, bytes, outOfBand);
        StructRegistry.ReadTable read = ((StructRegistry) registry.structs()).readTable(in, bytes);
        List<StructFrames.Entry> table = read.entries();
        int offset = read.end();
        ByteBuffer inner = bytes.slice(offset, bytes.remaining() - offset);
        if (inner.remaining() < ClassIdHash.SIZE) {
            throw new DeserializationException("the value after the struct table is too short to hold a ClassIDHash", offset);
        }
        long hash = inner.order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        StructFrames.push(table);
        try {
            for (StructFrames.Entry entry : table) {
                if (entry.hash() == hash) {
                    InBandReader body = new InBandReader(registry, inner.slice(ClassIdHash.SIZE,
                            inner.remaining() - ClassIdHash.SIZE), outOfBand);
                    Object value = StructFrames.readInstance(body);
                    body.expectEnd();
                    return value;
                }
            }
            return registry.deserializeSection(inner.order(ByteOrder.BIG_ENDIAN), outOfBand);
        } finally {
            StructFrames.pop();
        }
    }
}
