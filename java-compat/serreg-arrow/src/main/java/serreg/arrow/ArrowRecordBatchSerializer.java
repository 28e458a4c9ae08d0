package serreg.arrow;

import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializationResult;
import serreg.SerializerRegistry;

/**
 * Class ID {@code ArrowRecordBatch} (pyarrow RecordBatch) as {@link ArrowRecordBatch}: array
 * [schema, [one batch]]. Zero-copy from a direct frame; the caller closes the result.
 */
public final class ArrowRecordBatchSerializer extends MsgpackSerializer<ArrowRecordBatch> {
    private final Supplier<BufferAllocator> allocator;

    /**
     * A serializer whose decoded data goes to the allocator {@code allocator} supplies, asked
     * for it only when a value is read (so registering touches no Arrow memory).
     *
     * @param registry the registry nested values are written and read with
     * @param allocator supplies the allocator decoded vectors are accounted to
     */
    public ArrowRecordBatchSerializer(SerializerRegistry registry, Supplier<BufferAllocator> allocator) {
        super(registry);
        this.allocator = allocator;
    }

    /** The canonical form of section 9.5, written by {@link ArrowCanonical}. */
    @Override
    public SerializationResult serializeCanonical(ArrowRecordBatch value) {
        return ArrowCanonical.write(value.root(), registry);
    }

    @Override
    protected void write(ArrowRecordBatch value, InBandWriter out) {
        out.writeArrayHeader(2).writeBinary(ArrowBatchCodec.schemaBytes(value.root()));
        out.writeArrayHeader(1);
        ArrowBatchCodec.writeBatch(value.root(), out);
    }

    @Override
    protected ArrowRecordBatch read(InBandReader in) {
        long at = in.offset();
        in.readArrayHeader(2, "ArrowRecordBatch in-band");
        Schema schema = ArrowBatchCodec.readSchema(in);
        int batches = in.readArrayHeader();
        if (batches != 1) {
            throw in.error("an ArrowRecordBatch has exactly one batch, not " + batches, at);
        }
        return new ArrowRecordBatch(ArrowBatchReader.readBatch(schema, in, allocator.get()));
    }
}
