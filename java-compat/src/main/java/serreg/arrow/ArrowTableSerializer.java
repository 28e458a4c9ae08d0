package serreg.arrow;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/**
 * Class ID {@code ArrowTable} (pyarrow Table) as a {@link VectorSchemaRoot}: array [schema,
 * batches]. Java writes one batch. Reading one batch is zero-copy from a direct frame; a table of
 * several batches is concatenated into allocator memory (one copy), since a VectorSchemaRoot is a
 * single batch. The caller owns the returned root and closes it; its vectors may be views of the
 * frame, so keep the frame's memory alive while the root is used.
 */
public final class ArrowTableSerializer extends MsgpackSerializer<VectorSchemaRoot> {
    private final BufferAllocator allocator;

    public ArrowTableSerializer(SerializerRegistry registry, BufferAllocator allocator) {
        super(registry);
        this.allocator = allocator;
    }

    @Override
    protected void write(VectorSchemaRoot value, InBandWriter out) {
        out.writeArrayHeader(2).writeBinary(ArrowBatchCodec.schemaBytes(value.getSchema()));
        out.writeArrayHeader(1);
        ArrowBatchCodec.writeBatch(value, out);
    }

    @Override
    protected VectorSchemaRoot read(InBandReader in) {
        in.readArrayHeader(2, "ArrowTable in-band");
        Schema schema = ArrowBatchCodec.readSchema(in);
        int batchCount = in.readArrayHeader();
        if (batchCount == 1) {
            return ArrowBatchCodec.readBatch(schema, in, allocator);
        }
        VectorSchemaRoot table = VectorSchemaRoot.create(schema, allocator);
        table.allocateNew();
        table.setRowCount(0);
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (int i = 0; i < batchCount; i++) {
                batches.add(ArrowBatchCodec.readBatch(schema, in, allocator));
            }
            if (!batches.isEmpty()) {
                VectorSchemaRootAppender.append(table, batches.toArray(VectorSchemaRoot[]::new));
            }
            return table;
        } catch (RuntimeException e) {
            table.close();
            throw e;
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }
}
