package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
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
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.LargeListViewVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.complex.RunEndEncodedVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.CanonicalFormException;
import serreg.InBandWriter;
import serreg.SerializationResult;
import serreg.SerializerRegistry;
import serreg.canonical.CanonicalFloats;

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
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

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
        Batch batch = new Batch();
        batch.dictionaries = ArrowDictionaries.of(root);
        for (int i = 0; i < vectors.size(); i++) {
            FieldVector v = vectors.get(i);
            Field field = schema.getFields().get(i);
            writeNode(field, v, field.getName(), Slots.range(0, rows), null, batch);
        }
        out.writeArrayHeader(1).writeArrayHeader(2).writeLong(rows).writeArrayHeader(batch.nodes.size());
        for (long[] node : batch.nodes) {
            out.writeArrayHeader(3).writeLong(node[0]).writeLong(node[1]).writeLong(node[2]);
        }
        batch.buffers.forEach(out::addOutOfBand);
        return out.finish();
    }

    /** The field nodes and buffers of one batch, in IPC order (section 6.4). */
    private static final class Batch {
        final List<long[]> nodes = new ArrayList<>();
        final List<ByteBuffer> buffers = new ArrayList<>();
        org.apache.arrow.vector.dictionary.DictionaryProvider dictionaries;
    }

    /**
     * Which slots of a source vector a node holds, in order: runs of consecutive source slots.
     * A top-level column is one run; the child of a list holds the runs its valid slots cover.
     */
    private static final class Slots {
        private long[] starts = new long[4];
        private long[] lengths = new long[4];
        private int runs;
        private long count;
        private long end;  // one past the highest source slot

        static Slots range(long start, long length) {
            Slots s = new Slots();
            s.add(start, length);
            return s;
        }

        /** Appends source slots start..start+length-1, merging with the last run when they touch. */
        void add(long start, long length) {
            if (length == 0) {
                return;
            }
            count += length;
            end = Math.max(end, start + length);
            if (runs > 0 && starts[runs - 1] + lengths[runs - 1] == start) {
                lengths[runs - 1] += length;
                return;
            }
            if (runs == starts.length) {
                starts = Arrays.copyOf(starts, runs * 2);
                lengths = Arrays.copyOf(lengths, runs * 2);
            }
            starts[runs] = start;
            lengths[runs] = length;
            runs++;
        }

        int count() {
            return Math.toIntExact(count);
        }

        /** The slots of a child holding {@code size} consecutive slots per slot of this one. */
        Slots times(long size) {
            Slots s = new Slots();
            for (int r = 0; r < runs; r++) {
                s.add(starts[r] * size, lengths[r] * size);
            }
            return s;
        }

        /** Calls {@code visit(outIndex, sourceIndex)} for every slot, in order. */
        void forEach(SlotVisitor visit) {
            int out = 0;
            for (int r = 0; r < runs; r++) {
                for (long j = starts[r]; j < starts[r] + lengths[r]; j++) {
                    visit.slot(out++, Math.toIntExact(j));
                }
            }
        }
    }

    @FunctionalInterface
    private interface SlotVisitor {
        void slot(int out, int source);
    }

    /** Appends the node of {@code field}, held by {@code v}, and those of its children (depth-first, section 6.4). */
    private static void writeNode(Field field, FieldVector v, String path, Slots slots, BitSet parentValid, Batch batch) {
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
            writeUnion(field, v, path, slots, parentValid, batch);
            return;
        }
        if (type instanceof ArrowType.RunEndEncoded) {
            writeRunEnds(field, v, path, slots, parentValid, batch);
            return;
        }
        BitSet valid = validity(v, slots, parentValid);
        boolean view = ArrowBatchCodec.isView(type);
        batch.nodes.add(new long[] {n, valid == null ? 0 : n - valid.cardinality(), view ? 3 : TypeLayout.getTypeBufferCount(type)});
        batch.buffers.add(valid == null ? EMPTY : bits(valid, n));
        switch (type.getTypeID()) {
            case Bool -> batch.buffers.add(boolValues(as(BitVector.class, v, path), slots, valid));
            case Struct -> {
                List<FieldVector> children = as(StructVector.class, v, path).getChildrenFromFields();
                List<Field> fields = childFields(field, children.size(), path);
                for (int i = 0; i < children.size(); i++) {
                    Field child = fields.get(i);
                    writeNode(child, children.get(i), path + "." + child.getName(), slots, valid, batch);
                }
            }
            case FixedSizeList -> {
                FixedSizeListVector list = as(FixedSizeListVector.class, v, path);
                int size = list.getListSize();
                writeNode(childFields(field, 1, path).get(0), list.getDataVector(), path + "." + SchemaDescription.LIST_ITEM_NAME,
                        slots.times(size), valid == null ? null : repeat(valid, n, size), batch);
            }
            case List, Map -> {  // a MapVector is a ListVector of entries
                ListVector list = as(ListVector.class, v, path);
                Slots kept = new Slots();
                batch.buffers.add(offsets(list.getOffsetBuffer(), 4, slots, valid, kept, path));
                String child = type.getTypeID() == ArrowType.ArrowTypeID.Map
                        ? SchemaDescription.MAP_ENTRIES_NAME : SchemaDescription.LIST_ITEM_NAME;
                writeNode(childFields(field, 1, path).get(0), list.getDataVector(), path + "." + child, kept, null, batch);
            }
            case LargeList -> {
                LargeListVector list = as(LargeListVector.class, v, path);
                Slots kept = new Slots();
                batch.buffers.add(offsets(list.getOffsetBuffer(), 8, slots, valid, kept, path));
                writeNode(childFields(field, 1, path).get(0), list.getDataVector(), path + "." + SchemaDescription.LIST_ITEM_NAME,
                        kept, null, batch);
            }
            case Utf8View, BinaryView -> views(as(org.apache.arrow.vector.BaseVariableWidthViewVector.class, v, path), slots,
                    valid, batch);
            case ListView, LargeListView -> {
                int width = type instanceof ArrowType.ListView ? 4 : 8;
                ArrowBuf offsets = v instanceof ListViewVector list ? list.getOffsetBuffer()
                        : as(LargeListViewVector.class, v, path).getOffsetBuffer();
                ArrowBuf sizes = v instanceof ListViewVector list ? list.getSizeBuffer()
                        : as(LargeListViewVector.class, v, path).getSizeBuffer();
                FieldVector data = (FieldVector) (v instanceof ListViewVector list ? list.getDataVector()
                        : as(LargeListViewVector.class, v, path).getDataVector());
                Slots kept = new Slots();
                ByteBuffer newOffsets = ByteBuffer.allocate(Math.multiplyExact(n, width)).order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer newSizes = ByteBuffer.allocate(Math.multiplyExact(n, width)).order(ByteOrder.LITTLE_ENDIAN);
                long[] end = {0};
                slots.forEach((i, j) -> {
                    long offset = width == 4 ? offsets.getInt((long) j * 4) : offsets.getLong((long) j * 8);
                    long size = width == 4 ? sizes.getInt((long) j * 4) : sizes.getLong((long) j * 8);
                    if (valid != null && !valid.get(i)) {
                        size = 0;
                    }
                    kept.add(offset, size);
                    if (width == 4) {
                        newOffsets.putInt((int) end[0]);
                        newSizes.putInt((int) size);
                    } else {
                        newOffsets.putLong(end[0]);
                        newSizes.putLong(size);
                    }
                    end[0] += size;
                });
                batch.buffers.add(newOffsets.flip());
                batch.buffers.add(newSizes.flip());
                writeNode(childFields(field, 1, path).get(0), data, path + "." + SchemaDescription.LIST_ITEM_NAME, kept,
                        null, batch);
            }
            case Binary, Utf8 -> {
                BaseVariableWidthVector binary = as(BaseVariableWidthVector.class, v, path);
                Slots kept = new Slots();
                batch.buffers.add(offsets(binary.getOffsetBuffer(), 4, slots, valid, kept, path));
                batch.buffers.add(gather(binary.getDataBuffer(), kept));
            }
            case LargeBinary, LargeUtf8 -> {
                BaseLargeVariableWidthVector binary = as(BaseLargeVariableWidthVector.class, v, path);
                Slots kept = new Slots();
                batch.buffers.add(offsets(binary.getOffsetBuffer(), 8, slots, valid, kept, path));
                batch.buffers.add(gather(binary.getDataBuffer(), kept));
            }
            case Int, FloatingPoint, Decimal, Date, Time, Timestamp, Duration, FixedSizeBinary, Interval ->
                    batch.buffers.add(fixedWidth(as(BaseFixedWidthVector.class, v, path), type, slots, valid, path));
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
            writeNode(values.getField(), values, path + ".dictionary", Slots.range(0, values.getValueCount()), null, batch);
        }
    }

    /**
     * A union: no validity; sparse: the type ids (the first type code under a null pushed down
     * from a parent) and each child with the slots another child holds pushed to null; dense: the
     * type ids, offsets renumbered 0, 1, ... per child, each child reduced to the slots used.
     */
    private static void writeUnion(Field field, FieldVector v, String path, Slots slots, BitSet parentValid, Batch batch) {
        ArrowType.Union union = (ArrowType.Union) field.getType();
        List<FieldVector> children = v.getChildrenFromFields();
        List<Field> fields = childFields(field, children.size(), path);
        int[] codes = union.getTypeIds() != null ? union.getTypeIds() : java.util.stream.IntStream.range(0, fields.size()).toArray();
        int[] childOf = new int[128];
        for (int c = 0; c < codes.length; c++) {
            childOf[codes[c]] = c;
        }
        int n = slots.count();
        byte[] ids = new byte[n];
        if (union.getMode() == org.apache.arrow.vector.types.UnionMode.Sparse) {
            UnionVector sparse = as(UnionVector.class, v, path);
            slots.forEach((out, source) -> ids[out] = (byte) sparse.getTypeValue(source));
            if (parentValid != null) {
                for (int i = parentValid.nextClearBit(0); i < n; i = parentValid.nextClearBit(i + 1)) {
                    ids[i] = (byte) codes[0];
                }
            }
            batch.nodes.add(new long[] {n, 0, 1});
            batch.buffers.add(ByteBuffer.wrap(ids));
            for (int c = 0; c < codes.length; c++) {
                BitSet held = new BitSet(n);
                for (int i = 0; i < n; i++) {
                    if (ids[i] == codes[c] && (parentValid == null || parentValid.get(i))) {
                        held.set(i);
                    }
                }
                Field child = fields.get(c);
                writeNode(child, children.get(c), path + "." + child.getName(), slots, held, batch);
            }
            return;
        }
        DenseUnionVector dense = as(DenseUnionVector.class, v, path);
        ByteBuffer offsets = ByteBuffer.allocate(Math.multiplyExact(n, 4)).order(ByteOrder.LITTLE_ENDIAN);
        int[] ranks = new int[codes.length];
        Slots[] used = new Slots[codes.length];
        BitSet[] usedValid = new BitSet[codes.length];
        for (int c = 0; c < codes.length; c++) {
            used[c] = new Slots();
            usedValid[c] = new BitSet();
        }
        slots.forEach((out, source) -> {
            byte id = dense.getTypeId(source);
            int c = childOf[id];
            ids[out] = id;
            offsets.putInt(ranks[c]);
            used[c].add(dense.getOffset(source), 1);
            if (parentValid == null || parentValid.get(out)) {
                usedValid[c].set(ranks[c]);
            }
            ranks[c]++;
        });
        batch.nodes.add(new long[] {n, 0, 2});
        batch.buffers.add(ByteBuffer.wrap(ids));
        batch.buffers.add(offsets.flip());
        for (int c = 0; c < codes.length; c++) {
            Field child = fields.get(c);
            writeNode(child, children.get(c), path + "." + child.getName(), used[c], parentValid == null ? null : usedValid[c],
                    batch);
        }
    }

    /**
     * Run-end encoded: no buffers; the runs of the node's slots with their ends counted from 0
     * (runs are not merged), split where nulls pushed down from a parent begin or end; the values
     * of those runs in order.
     */
    private static void writeRunEnds(Field field, FieldVector v, String path, Slots slots, BitSet parentValid, Batch batch) {
        RunEndEncodedVector ree = as(RunEndEncodedVector.class, v, path);
        FieldVector runEnds = ree.getRunEndsVector();
        int width = ((ArrowType.Int) runEnds.getField().getType()).getBitWidth() / 8;
        ArrowBuf endsBuf = runEnds.getDataBuffer();
        int runCount = runEnds.getValueCount();
        java.util.function.IntToLongFunction endAt = k -> width == 2 ? endsBuf.getShort(2L * k)
                : width == 4 ? endsBuf.getInt(4L * k) : endsBuf.getLong(8L * k);
        List<Long> ends = new ArrayList<>();
        List<Integer> runValues = new ArrayList<>();
        long base = 0;
        for (int r = 0; r < slots.runs; r++) {
            long start = slots.starts[r];
            long stop = start + slots.lengths[r];
            int k = 0;
            while (k < runCount && endAt.applyAsLong(k) <= start) {
                k++;
            }
            for (; k < runCount && start < stop; k++) {
                long end = Math.min(endAt.applyAsLong(k), stop);
                ends.add(end - slots.starts[r] + base);
                runValues.add(k);
                start = end;
            }
            base += slots.lengths[r];
        }
        int n = slots.count();
        BitSet valuesValid = null;
        if (parentValid != null && parentValid.cardinality() != n) {
            java.util.TreeSet<Long> split = new java.util.TreeSet<>(ends);
            for (int i = 1; i < n; i++) {
                if (parentValid.get(i) != parentValid.get(i - 1)) {
                    split.add((long) i);
                }
            }
            List<Integer> splitValues = new ArrayList<>();
            valuesValid = new BitSet();
            long previous = 0;
            int run = 0;
            for (long end : split) {
                while (ends.get(run) <= previous) {
                    run++;
                }
                if (parentValid.get((int) previous)) {
                    valuesValid.set(splitValues.size());
                }
                splitValues.add(runValues.get(run));
                previous = end;
            }
            ends = new ArrayList<>(split);
            runValues = splitValues;
        }
        Slots values = new Slots();
        runValues.forEach(k -> values.add(k, 1));
        ByteBuffer endBytes = ByteBuffer.allocate(Math.multiplyExact(ends.size(), width)).order(ByteOrder.LITTLE_ENDIAN);
        for (long end : ends) {
            if (width == 2) {
                endBytes.putShort((short) end);
            } else if (width == 4) {
                endBytes.putInt((int) end);
            } else {
                endBytes.putLong(end);
            }
        }
        batch.nodes.add(new long[] {n, 0, 0});
        batch.nodes.add(new long[] {ends.size(), 0, 2});
        batch.buffers.add(EMPTY);
        batch.buffers.add(endBytes.flip());
        Field valuesField = childFields(field, 2, path).get(1);
        writeNode(valuesField, ree.getValuesVector(), path + ".values", values, valuesValid, batch);
    }

    /** Binary and string views: 16 bytes per slot (inline up to 12 bytes), one data buffer of the longer values. */
    private static void views(org.apache.arrow.vector.BaseVariableWidthViewVector v, Slots slots, BitSet valid, Batch batch) {
        int n = slots.count();
        ByteBuffer views = ByteBuffer.allocate(Math.multiplyExact(n, 16)).order(ByteOrder.LITTLE_ENDIAN);
        java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
        slots.forEach((out, source) -> {
            int at = out * 16;
            if (valid != null && !valid.get(out) || v.isNull(source)) {
                return;
            }
            byte[] value = v.get(source);
            views.putInt(at, value.length);
            if (value.length <= 12) {
                views.put(at + 4, value, 0, value.length);
            } else {
                views.put(at + 4, value, 0, 4);
                views.putInt(at + 8, 0);
                views.putInt(at + 12, data.size());
                data.write(value, 0, value.length);
            }
        });
        batch.buffers.add(views);
        batch.buffers.add(ByteBuffer.wrap(data.toByteArray()));
    }

    private static List<Field> childFields(Field field, int vectors, String path) {
        if (field.getChildren().size() != vectors) {
            throw new CanonicalFormException("Arrow field '" + path + "' has " + field.getChildren().size()
                    + " child fields in the schema but " + vectors + " child vectors; the schema is out of date"
                    + " (VectorSchemaRoot.syncSchema)");
        }
        return field.getChildren();
    }

    private static <T> T as(Class<T> cls, FieldVector v, String path) {
        if (!cls.isInstance(v)) {
            throw new CanonicalFormException("Arrow field '" + path + "' of type " + v.getField().getType()
                    + " is held by a " + v.getClass().getSimpleName() + ", not a " + cls.getSimpleName());
        }
        return cls.cast(v);
    }

    /** Validity of the node's slots with the parent's nulls pushed down, or null when every slot is valid. */
    private static BitSet validity(FieldVector v, Slots slots, BitSet parentValid) {
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

    private static ByteBuffer boolValues(BitVector v, Slots slots, BitSet valid) {
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
    private static ByteBuffer offsets(ArrowBuf source, int width, Slots slots, BitSet valid, Slots kept, String path) {
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

    /** The bytes of {@code buf} in the given ranges, joined: a view when they are one range. */
    private static ByteBuffer gather(ArrowBuf buf, Slots ranges) {
        if (ranges.count == 0) {
            return EMPTY;
        }
        if (ranges.runs == 1) {
            return buf.nioBuffer(ranges.starts[0], Math.toIntExact(ranges.lengths[0]));
        }
        byte[] out = new byte[ranges.count()];
        int at = 0;
        for (int r = 0; r < ranges.runs; r++) {
            int length = Math.toIntExact(ranges.lengths[r]);
            buf.getBytes(ranges.starts[r], out, at, length);
            at += length;
        }
        return ByteBuffer.wrap(out);
    }

    /** Exactly length x width bytes, zero in null slots, floats canonical. */
    private static ByteBuffer fixedWidth(BaseFixedWidthVector v, ArrowType type, Slots slots, BitSet valid, String path) {
        int width = v.getTypeWidth();
        int expected = switch (type.getTypeID()) {
            case Int -> ((ArrowType.Int) type).getBitWidth() / 8;
            case FloatingPoint -> switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                case HALF -> 2;
                case SINGLE -> 4;
                case DOUBLE -> 8;
            };
            case Decimal -> ((ArrowType.Decimal) type).getBitWidth() / 8;
            case Date -> ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8;
            case Time -> ((ArrowType.Time) type).getBitWidth() / 8;
            case FixedSizeBinary -> ((ArrowType.FixedSizeBinary) type).getByteWidth();
            case Interval -> {
                if (((ArrowType.Interval) type).getUnit() != org.apache.arrow.vector.types.IntervalUnit.MONTH_DAY_NANO) {
                    // Python cannot hold these (pyarrow has no array class for them): no frame carries them.
                    throw new CanonicalFormException("Arrow field '" + path + "' is an interval of unit "
                            + ((ArrowType.Interval) type).getUnit() + ", which has no canonical form (docs/FORMAT.md,"
                            + " sections 6.4 and 9.5; MONTH_DAY_NANO intervals have one)");
                }
                yield 16;
            }
            default -> 8;  // Timestamp, Duration
        };
        if (width != expected) {
            // Arrow Java 18 holds a 32- or 64-bit decimal in a 128-bit DecimalVector.
            throw new CanonicalFormException("Arrow field '" + path + "' of type " + type + " is held in a "
                    + v.getClass().getSimpleName() + " of " + width + "-byte values, not " + expected);
        }
        int n = slots.count();
        boolean floats = type.getTypeID() == ArrowType.ArrowTypeID.FloatingPoint;
        ArrowBuf data = v.getDataBuffer();
        if (n == 0) {
            return EMPTY;
        }
        if (slots.runs == 1 && valid == null && !(floats && hasNonCanonicalFloat(data, slots.starts[0], n, width))) {
            return data.nioBuffer(slots.starts[0] * width, Math.multiplyExact(n, width));
        }
        ByteBuffer bytes = gather(data, slots.times(width));
        byte[] out = new byte[bytes.remaining()];
        bytes.duplicate().get(out);
        if (floats) {
            CanonicalFloats.normalize(out, width);
        }
        if (valid != null) {
            for (int i = valid.nextClearBit(0); i < n; i = valid.nextClearBit(i + 1)) {
                Arrays.fill(out, i * width, (i + 1) * width, (byte) 0);
            }
        }
        return ByteBuffer.wrap(out);
    }

    private static boolean hasNonCanonicalFloat(ArrowBuf data, long first, int n, int width) {
        for (long i = first; i < first + n; i++) {
            long bits = switch (width) {
                case 2 -> data.getShort(i * 2);
                case 4 -> data.getInt(i * 4);
                default -> data.getLong(i * 8);
            };
            if (!CanonicalFloats.isCanonical(bits, width)) {
                return true;
            }
        }
        return false;
    }
}
