package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.CanonicalFormException;
import serreg.InBandWriter;
import serreg.SerializationResult;
import serreg.SerializerRegistry;

/**
 * The canonical form of {@code ArrowTable} and {@code ArrowRecordBatch} (docs/FORMAT.md, section
 * 9.5), the Java twin of Python's {@code serializers/pyarrow_canonical.py}.
 *
 * <p>The schema is written as the msgpack schema description ({@link SchemaDescription#write}),
 * the rows as exactly one batch, and every node and buffer is rebuilt from the logical values
 * only, so equal values give equal bytes whatever their history (how the vectors were filled, a
 * validity bitmap that is present but all set, bytes left under null slots, offsets that do not
 * start at 0, bytes or child slots no offset covers, slicing, appending): a validity bitmap is
 * absent when the node has no nulls and otherwise exactly ceil(length / 8) bytes; the nulls of a
 * struct or fixed-size-list slot are pushed down into its children; null slots are zero
 * (fixed width), empty (variable width and lists) or null (pushed down); offsets start at 0;
 * no buffer has trailing bytes; floats have -0.0 and NaN made canonical.
 *
 * <p>Buffers that need none of this (a fixed-width column without nulls, the bytes of a string
 * column whose kept slots are contiguous) are views of the vectors' memory, not copies: keep the
 * value open while the result is used.
 */
public final class ArrowCanonical {
    private ArrowCanonical() {
    }

    /**
     * The serializer result (in-band without the ClassIDHash, and OOB buffers) of the canonical
     * form of the rows of {@code root}: [schema description, [[row count, nodes]]].
     *
     * @throws CanonicalFormException if a field's type has no canonical form (dictionary, union,
     *     interval, view, run-end and extension types), the schema does not match the vectors, or
     *     a vector holds fewer values than the rows (or its parent's offsets) need
     */
    public static SerializationResult write(VectorSchemaRoot root, SerializerRegistry registry) {
        int rows = root.getRowCount();
        Schema schema = root.getSchema();
        List<FieldVector> vectors = root.getFieldVectors();
        InBandWriter out = new InBandWriter(registry);
        out.writeArrayHeader(2);
        // The schema, not the vectors' own fields: some vectors drop field metadata (a NullVector
        // made by VectorSchemaRoot.create does), and the ordinary writer sends the schema too.
        SchemaDescription.write(ArrowBatchCodec.messageSchema(root), out);
        if (schema.getFields().size() != vectors.size()) {
            throw new CanonicalFormException("the Arrow schema has " + schema.getFields().size() + " fields but the root holds "
                    + vectors.size() + " vectors");
        }
        CanonicalBatch batch = new CanonicalBatch();
        batch.dictionaries = ArrowDictionaries.of(root);
        for (int i = 0; i < vectors.size(); i++) {
            FieldVector v = vectors.get(i);
            Field field = schema.getFields().get(i);
            writeNode(field, v, field.getName(), CanonicalSlots.range(0, rows), null, batch);
        }
        out.writeArrayHeader(1).writeArrayHeader(2).writeLong(rows).writeArrayHeader(batch.nodes.size());
        for (long[] node : batch.nodes) {
            out.writeArrayHeader(3).writeLong(node[0]).writeLong(node[1]).writeLong(node[2]);
        }
        batch.buffers.forEach(out::addOutOfBand);
        return out.finish();
    }

    /** Appends the node of {@code field}, held by {@code v}, and those of its children (depth-first, section 6.4). */
    private static void writeNode(Field field, FieldVector v, String path, CanonicalSlots slots, BitSet parentValid, CanonicalBatch batch) {
        ArrowType type = field.getType();
        // (A sparse UnionVector reports the type ids of its own minor types; the schema's are the frame's.)
        boolean unions = type instanceof ArrowType.Union && v.getField().getType() instanceof ArrowType.Union u
                && u.getMode() == ((ArrowType.Union) type).getMode();
        if (!unions && !type.equals(v.getField().getType())) {
            throw new CanonicalFormException("Arrow field '" + path + "' has type " + type + " in the schema but its vector "
                    + "holds " + v.getField().getType() + "; the schema is out of date (VectorSchemaRoot.syncSchema)");
        }
        if (slots.end > v.getValueCount()) {
            // A column shorter than the table, or a child its parent's offsets or list size overrun.
            throw new CanonicalFormException("Arrow field '" + path + "' holds " + v.getValueCount()
                    + " values, but " + slots.end + " are needed");
        }
        int n = slots.count();
        if (type.getTypeID() == ArrowType.ArrowTypeID.Null) {
            batch.nodes.add(new long[] {n, n, 0});
            return;
        }
        if (type instanceof ArrowType.Union) {
            ArrowCanonicalLayouts.writeUnion(field, v, path, slots, parentValid, batch, ArrowCanonical::writeNode);
            return;
        }
        if (type instanceof ArrowType.RunEndEncoded) {
            ArrowCanonicalLayouts.writeRunEnds(field, v, path, slots, parentValid, batch, ArrowCanonical::writeNode);
            return;
        }
        BitSet valid = validity(v, slots, parentValid);
        boolean view = ArrowBatchCodec.isView(type);
        batch.nodes.add(new long[] {n, valid == null ? 0 : n - valid.cardinality(), view ? 3 : TypeLayout.getTypeBufferCount(type)});
        batch.buffers.add(valid == null ? CanonicalBatch.EMPTY : bits(valid, n));
        switch (type.getTypeID()) {
            case Bool -> batch.buffers.add(boolValues(CanonicalBatch.as(BitVector.class, v, path), slots, valid));
            case Struct -> {
                List<FieldVector> children = CanonicalBatch.as(StructVector.class, v, path).getChildrenFromFields();
                List<Field> fields = CanonicalBatch.childFields(field, children.size(), path);
                for (int i = 0; i < children.size(); i++) {
                    Field child = fields.get(i);
                    writeNode(child, children.get(i), path + "." + child.getName(), slots, valid, batch);
                }
            }
            case FixedSizeList -> {
                FixedSizeListVector list = CanonicalBatch.as(FixedSizeListVector.class, v, path);
                int size = list.getListSize();
                writeNode(CanonicalBatch.childFields(field, 1, path).get(0), list.getDataVector(), path + "." + SchemaDescription.LIST_ITEM_NAME,
                        slots.times(size), valid == null ? null : repeat(valid, n, size), batch);
            }
            case List, Map -> {  // a MapVector is a ListVector of entries
                ListVector list = CanonicalBatch.as(ListVector.class, v, path);
                CanonicalSlots kept = new CanonicalSlots();
                batch.buffers.add(offsets(list.getOffsetBuffer(), 4, slots, valid, kept, path));
                String child = type.getTypeID() == ArrowType.ArrowTypeID.Map
                        ? SchemaDescription.MAP_ENTRIES_NAME : SchemaDescription.LIST_ITEM_NAME;
                writeNode(CanonicalBatch.childFields(field, 1, path).get(0), list.getDataVector(), path + "." + child, kept, null, batch);
            }
            case LargeList -> {
                LargeListVector list = CanonicalBatch.as(LargeListVector.class, v, path);
                CanonicalSlots kept = new CanonicalSlots();
                batch.buffers.add(offsets(list.getOffsetBuffer(), 8, slots, valid, kept, path));
                writeNode(CanonicalBatch.childFields(field, 1, path).get(0), list.getDataVector(), path + "." + SchemaDescription.LIST_ITEM_NAME,
                        kept, null, batch);
            }
            case Utf8View, BinaryView -> ArrowCanonicalLayouts.views(CanonicalBatch.as(org.apache.arrow.vector.BaseVariableWidthViewVector.class, v, path), slots,
                    valid, batch);
            case ListView, LargeListView -> ArrowCanonicalLayouts.writeListView(field, v, path, slots, valid, batch,
                    ArrowCanonical::writeNode);
            case Binary, Utf8 -> {
                BaseVariableWidthVector binary = CanonicalBatch.as(BaseVariableWidthVector.class, v, path);
                CanonicalSlots kept = new CanonicalSlots();
                batch.buffers.add(offsets(binary.getOffsetBuffer(), 4, slots, valid, kept, path));
                batch.buffers.add(ArrowCanonicalLayouts.gather(binary.getDataBuffer(), kept));
            }
            case LargeBinary, LargeUtf8 -> {
                BaseLargeVariableWidthVector binary = CanonicalBatch.as(BaseLargeVariableWidthVector.class, v, path);
                CanonicalSlots kept = new CanonicalSlots();
                batch.buffers.add(offsets(binary.getOffsetBuffer(), 8, slots, valid, kept, path));
                batch.buffers.add(ArrowCanonicalLayouts.gather(binary.getDataBuffer(), kept));
            }
            case Int, FloatingPoint, Decimal, Date, Time, Timestamp, Duration, FixedSizeBinary, Interval ->
                    batch.buffers.add(ArrowCanonicalLayouts.fixedWidth(CanonicalBatch.as(BaseFixedWidthVector.class, v, path), type, slots, valid, path));
            default -> throw new CanonicalFormException("Arrow field '" + path + "' has type " + type
                    + ", which has no canonical form (docs/FORMAT.md, sections 6.4 and 9.5)");
        }
        if (field.getDictionary() != null) {
            // The index node above, then the dictionary's nodes as they are (section 9.5).
            org.apache.arrow.vector.dictionary.Dictionary dictionary = batch.dictionaries == null ? null
                    : batch.dictionaries.lookup(field.getDictionary().getId());
            if (dictionary == null) {
                throw new CanonicalFormException("Arrow field '" + path + "' names dictionary " + field.getDictionary().getId()
                        + ", which the root's ArrowDictionaries do not hold");
            }
            FieldVector values = dictionary.getVector();
            writeNode(values.getField(), values, path + ".dictionary", CanonicalSlots.range(0, values.getValueCount()), null, batch);
        }
    }

    /** Validity of the node's slots with the parent's nulls pushed down, or null when every slot is valid. */
    private static BitSet validity(FieldVector v, CanonicalSlots slots, BitSet parentValid) {
        int n = slots.count();
        BitSet valid;
        if (v.getNullCount() == 0) {
            if (parentValid == null) {
                return null;
            }
            valid = (BitSet) parentValid.clone();
        } else {
            BitSet own = new BitSet(n);
            slots.forEach((out, source) -> {
                if (!v.isNull(source)) {
                    own.set(out);
                }
            });
            if (parentValid != null) {
                own.and(parentValid);
            }
            valid = own;
        }
        return valid.cardinality() == n ? null : valid;
    }

    /** ceil(n / 8) bytes, bit i (least significant first) for slot i, padding bits zero. */
    private static ByteBuffer bits(BitSet set, int n) {
        return ByteBuffer.wrap(Arrays.copyOf(set.toByteArray(), (n + 7) / 8));
    }

    private static BitSet repeat(BitSet valid, int n, int size) {
        BitSet out = new BitSet(n * size);
        for (int i = valid.nextSetBit(0); i >= 0; i = valid.nextSetBit(i + 1)) {
            out.set(i * size, i * size + size);
        }
        return out;
    }

    private static ByteBuffer boolValues(BitVector v, CanonicalSlots slots, BitSet valid) {
        ArrowBuf data = v.getDataBuffer();
        BitSet values = new BitSet(slots.count());
        slots.forEach((out, source) -> {
            if ((valid == null || valid.get(out)) && BitVectorHelper.get(data, source) != 0) {
                values.set(out);
            }
        });
        return bits(values, slots.count());
    }

    /**
     * The canonical offsets (starting at 0, a null slot of length 0) of the selected slots of a
     * variable-width or list vector; adds to {@code kept} the source ranges of the valid slots,
     * i.e. the data bytes or child slots the canonical offsets cover.
     */
    private static ByteBuffer offsets(ArrowBuf source, int width, CanonicalSlots slots, BitSet valid, CanonicalSlots kept, String path) {
        int n = slots.count();
        ByteBuffer out = ByteBuffer.allocate(Math.multiplyExact(n + 1, width)).order(ByteOrder.LITTLE_ENDIAN);
        long[] end = {0};
        if (width == 4) {
            out.putInt(0);
        } else {
            out.putLong(0);
        }
        slots.forEach((i, j) -> {
            long start = width == 4 ? source.getInt((long) j * 4) : source.getLong((long) j * 8);
            long stop = width == 4 ? source.getInt((long) (j + 1) * 4) : source.getLong((long) (j + 1) * 8);
            if (stop < start || start < 0) {
                throw new CanonicalFormException("Arrow field '" + path + "' has decreasing or negative offsets at slot " + j);
            }
            if (valid == null || valid.get(i)) {
                kept.add(start, stop - start);
                end[0] += stop - start;
            }
            if (width == 4) {
                if (end[0] > Integer.MAX_VALUE) {
                    throw new CanonicalFormException("Arrow field '" + path + "' covers more than 2^31 - 1 bytes or slots"
                            + " with 32-bit offsets");
                }
                out.putInt((int) end[0]);
            } else {
                out.putLong(end[0]);
            }
        });
        return out.flip();
    }
}
