package serreg.arrow;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.DictionaryUtility;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializationResult;
import serreg.SerializerRegistry;

/**
 * Class ID {@code ArrowTable} (pyarrow Table) as a {@link VectorSchemaRoot}: array [schema,
 * batches]. Java writes one batch. Reading one batch is zero-copy from a direct frame; a table of
 * several batches is concatenated into allocator memory (one copy), since a VectorSchemaRoot is a
 * single batch. The caller owns the returned root and closes it; its vectors may be views of the
 * frame, so keep the frame's memory alive while the root is used.
 */
public final class ArrowTableSerializer extends MsgpackSerializer<VectorSchemaRoot> {
    private final Supplier<BufferAllocator> allocator;

    /**
     * A serializer whose decoded data goes to the allocator {@code allocator} supplies, asked
     * for it only when a value is read (so registering touches no Arrow memory).
     *
     * @param registry the registry nested values are written and read with
     * @param allocator supplies the allocator decoded vectors are accounted to
     */
    public ArrowTableSerializer(SerializerRegistry registry, Supplier<BufferAllocator> allocator) {
        super(registry);
        this.allocator = allocator;
    }

    /** The canonical form of section 9.5, written by {@link ArrowCanonical}. */
    @Override
    public SerializationResult serializeCanonical(VectorSchemaRoot value) {
        return ArrowCanonical.write(value, registry);
    }

    @Override
    protected void write(VectorSchemaRoot value, InBandWriter out) {
        out.writeArrayHeader(2).writeBinary(ArrowBatchCodec.schemaBytes(value));
        out.writeArrayHeader(1);
        ArrowBatchCodec.writeBatch(value, out);
    }

    @Override
    protected VectorSchemaRoot read(InBandReader in) {
        long at = in.offset();
        in.readArrayHeader(2, "ArrowTable in-band");
        Schema schema = ArrowBatchCodec.readSchema(in);
        int batchCount = in.readArrayHeader();
        if (batchCount == 1) {
            return ArrowBatchReader.readBatch(schema, in, allocator.get());
        }
        if (batchCount == 0 && schema.getFields().stream().anyMatch(DictionaryUtility::needConvertToMessageFormat)) {
            return ArrowBatchReader.emptyWithDictionaries(schema, allocator.get(), at);
        }
        if (batchCount > 1) {
            for (Field field : schema.getFields()) {
                checkAppendable(field, at);
            }
        }
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (int i = 0; i < batchCount; i++) {
                batches.add(ArrowBatchReader.readBatch(schema, in, allocator.get()));
            }
            return concatenate(schema, batches, at);
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    /**
     * One root holding the rows of every batch, in order (a copy). Every vector is sized
     * exactly for what the batches hold before anything is appended: Arrow's own growth starts
     * each vector at thousands of slots, which for a wide table of few rows would cost far more
     * memory than the frame holds.
     */
    private VectorSchemaRoot concatenate(Schema schema, List<VectorSchemaRoot> batches, long at) {
        VectorSchemaRoot table = ArrowBatchReader.createRoot(schema, allocator.get(), at);
        try {
            List<FieldVector> targets = flatten(table);
            List<List<FieldVector>> sources = batches.stream().map(ArrowTableSerializer::flatten).toList();
            for (int i = 0; i < targets.size(); i++) {
                long count = 0;
                long bytes = 0;
                for (List<FieldVector> source : sources) {
                    FieldVector v = source.get(i);
                    count += v.getValueCount();
                    if (v instanceof BaseVariableWidthVector var) {
                        bytes += var.getStartOffset(v.getValueCount()) - var.getStartOffset(0);
                    } else if (v instanceof BaseLargeVariableWidthVector large) {
                        bytes += large.getOffsetBuffer().getLong(8L * v.getValueCount()) - large.getOffsetBuffer().getLong(0);
                    }
                }
                if (count > Integer.MAX_VALUE - 1) {
                    throw new DeserializationException("the table's batches hold " + count + " slots in field '"
                            + targets.get(i).getName() + "', more than one Java VectorSchemaRoot can", at);
                }
                FieldVector target = targets.get(i);
                // Parents set their children's capacity too; children come later in pre-order and set their own.
                if (target instanceof BaseVariableWidthVector var) {
                    var.setInitialCapacity((int) count, count == 0 ? 1 : (bytes + 1.0) / count);
                } else if (target instanceof BaseLargeVariableWidthVector large) {
                    large.setInitialCapacity((int) count, count == 0 ? 1 : (bytes + 1.0) / count);
                } else {
                    target.setInitialCapacity((int) count);
                }
            }
            table.allocateNew();
            table.setRowCount(0);
            if (!batches.isEmpty()) {
                VectorSchemaRootAppender.append(table, batches.toArray(VectorSchemaRoot[]::new));
            }
            return table;
        } catch (RuntimeException e) {
            table.close();
            if (e instanceof DeserializationException d) {
                throw d;
            }
            throw new DeserializationException("could not concatenate the table's " + batches.size() + " batches: " + e, at, e);
        }
    }

    /**
     * Refuses, before anything is allocated, the columns Arrow Java's VectorSchemaRootAppender
     * cannot concatenate: a LargeList (it casts the vector to ListVector) and a struct with a
     * null-type child (it grows the struct's buffers until memory runs out).
     */
    private static void checkAppendable(Field field, long at) {
        if (field.getDictionary() != null) {
            throw new DeserializationException("a Java table is one batch, and the batches of dictionary-encoded"
                    + " field '" + field.getName() + "' may each have their own dictionary; send such a table as one batch", at);
        }
        boolean largeList = field.getType() instanceof ArrowType.LargeList;
        boolean structOfNull = field.getType() instanceof ArrowType.Struct
                && field.getChildren().stream().anyMatch(c -> c.getType() instanceof ArrowType.Null);
        if (largeList || structOfNull) {
            throw new DeserializationException("Arrow Java cannot concatenate several batches of field '" + field.getName()
                    + "' (" + (largeList ? "a LargeList" : "a struct with a null-type child") + "), and a Java table is"
                    + " one batch; send such a table as one batch", at);
        }
        for (Field child : field.getChildren()) {
            checkAppendable(child, at);
        }
    }

    private static List<FieldVector> flatten(VectorSchemaRoot root) {
        List<FieldVector> out = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
            flatten(v, out);
        }
        return out;
    }

    private static void flatten(FieldVector v, List<FieldVector> out) {
        out.add(v);
        for (FieldVector child : v.getChildrenFromFields()) {
            flatten(child, out);
        }
    }
}
