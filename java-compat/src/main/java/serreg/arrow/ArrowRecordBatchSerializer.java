package serreg.arrow;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.types.ArrowRecordBatch;

/**
 * Class ID {@code ArrowRecordBatch} (pyarrow RecordBatch) as {@link ArrowRecordBatch}: array
 * [schema, [one batch]]. Zero-copy from a direct frame; the caller closes the result.
 */
public final class ArrowRecordBatchSerializer extends MsgpackSerializer<ArrowRecordBatch> {
    private final BufferAllocator allocator;

    public ArrowRecordBatchSerializer(SerializerRegistry registry, BufferAllocator allocator) {
        super(registry);
        this.allocator = allocator;
    }

    @Override
    protected void write(ArrowRecordBatch value, InBandWriter out) {
        out.writeArrayHeader(2).writeBinary(ArrowBatchCodec.schemaBytes(value.root().getSchema()));
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
        return new ArrowRecordBatch(ArrowBatchCodec.readBatch(schema, in, allocator));
    }
}
