package serreg.arrow;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.DictionaryUtility;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.DeserializationException;
import serreg.InBandReader;

/**
 * Reads the batches of the Arrow in-band of docs/FORMAT.md section 6.4 (the reading half of
 * Python's {@code serializers/arrow_frames.py} and {@code arrow_nodes.py}): each batch's [row
 * count, nodes] and OOB buffers become a new root, its nodes checked against the schema and the
 * buffers ({@link ArrowNodeChecks}) and its cost charged to the call before Arrow Java loads
 * them. Zero-copy when the buffers are direct: the vectors are views of the frame's memory (see
 * {@link FrameMemory}).
 */
final class ArrowBatchReader {
    private ArrowBatchReader() {
    }

    /** Heap bytes Arrow Java takes for a batch's root, and per vector and per ArrowBuf (measured, rounded up). */
    static final long BATCH_COST = 512;
    static final long NODE_COST = 1024;
    static final long BUFFER_COST = 256;

    /** An empty root of {@code schema}; Arrow Java refusing to build one (a type it cannot hold) is a DeserializationException. */
    static VectorSchemaRoot createRoot(Schema schema, BufferAllocator allocator, long at) {
        try {
            return VectorSchemaRoot.create(schema, allocator);
        } catch (RuntimeException e) {
            throw new DeserializationException("Arrow Java cannot build vectors for the schema " + schema + ": " + e, at, e);
        }
    }

    /**
     * Reads one batch's [row count, nodes] and its OOB buffers into a new root of {@code schema}.
     * The nodes are checked against the schema and the buffers ({@link ArrowNodeChecks#checkBatch})
     * before Arrow Java loads them. Zero-copy when the buffers are direct: the vectors are views
     * of the frame.
     */
    static VectorSchemaRoot readBatch(Schema schema, InBandReader in, BufferAllocator allocator) {
        long at = in.offset();
        in.readArrayHeader(2, "an Arrow batch");
        long rows = in.readLong(0, Integer.MAX_VALUE, "Arrow row count");
        long nodesAt = in.offset();
        int nodeCount = in.readArrayHeader();
        List<Field> fields = new ArrayList<>();
        List<Field> checkFields = new ArrayList<>();
        for (Field f : schema.getFields()) {
            Field check = checkField(f);
            checkFields.add(check);
            flatten(check, fields);
        }
        if (nodeCount != fields.size()) {
            throw in.error("the batch has " + nodeCount + " nodes but the schema has " + fields.size() + " fields", nodesAt);
        }
        List<ArrowNodeChecks.Node> nodes = new ArrayList<>(nodeCount);
        List<Long> variadic = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            long nodeAt = in.offset();
            in.readArrayHeader(3, "an Arrow node");
            long length = in.readLong(0, Integer.MAX_VALUE, "node length");
            long nulls = in.readLong(0, length, "node null count");
            ArrowType type = fields.get(i).getType();
            boolean view = ArrowBatchCodec.isView(type);
            long bufferCount = in.readLong(0, view ? 1 << 20 : 16, "node buffer count");
            int expected = view ? (int) Math.max(bufferCount, 2) : TypeLayout.getTypeBufferCount(type);
            if (view) {
                variadic.add(bufferCount - 2);
            }
            if ((type instanceof ArrowType.Union || type instanceof ArrowType.RunEndEncoded) && nulls != 0) {
                throw in.error("field '" + fields.get(i).getName() + "' of type " + type + " has no nulls of its own,"
                        + " but its node says " + nulls, nodeAt);
            }
            if (bufferCount != expected) {
                throw in.error("field '" + fields.get(i).getName() + "' of type " + fields.get(i).getType()
                        + " has " + expected + " buffers, but its node says " + bufferCount, nodeAt);
            }
            List<ByteBuffer> nodeBuffers = new ArrayList<>(expected);
            for (int b = 0; b < bufferCount; b++) {
                nodeBuffers.add(in.nextOutOfBand("Arrow field '" + fields.get(i).getName() + "'"));
            }
            nodes.add(new ArrowNodeChecks.Node(fields.get(i), length, nulls, nodeBuffers, nodeAt));
        }
        ArrowNodeChecks.checkBatch(rows, nodes, checkFields, in);
        long bufferCount = 0;
        for (ArrowNodeChecks.Node node : nodes) {
            bufferCount += node.buffers().size();
        }
        // The root, a vector per node and an ArrowBuf per buffer are built whatever the rows: an
        // empty batch costs what it weighs only because it is charged (docs/FORMAT.md section 4.3).
        in.reserveAllocation(BATCH_COST + NODE_COST * nodeCount + BUFFER_COST * bufferCount,
                "an Arrow batch of " + nodeCount + " nodes", at);
        if (schema.getFields().stream().noneMatch(DictionaryUtility::needConvertToMessageFormat)) {
            VectorSchemaRoot root = createRoot(schema, allocator, at);
            try {
                load(root, nodes, rows, allocator, at);
                return root;
            } catch (RuntimeException e) {
                root.close();
                throw e;
            }
        }
        // Dictionary-encoded columns: the root holds their index vectors, the provider their dictionaries.
        java.util.Map<Long, Dictionary> dictionaries = new java.util.LinkedHashMap<>();
        DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
        VectorSchemaRoot root = null;
        try {
            root = memoryFormRoot(schema, allocator, dictionaries, provider, at);
            List<ArrowNodeChecks.Node> rootNodes = new ArrayList<>();
            java.util.Map<Long, List<ArrowNodeChecks.Node>> dictionaryNodes = new java.util.LinkedHashMap<>();
            int[] next = {0};
            for (Field f : schema.getFields()) {
                distribute(f, nodes, next, rootNodes, dictionaryNodes, at);
            }
            load(root, rootNodes, rows, allocator, at);
            for (java.util.Map.Entry<Long, List<ArrowNodeChecks.Node>> e : dictionaryNodes.entrySet()) {
                FieldVector vector = dictionaries.get(e.getKey()).getVector();
                load(new VectorSchemaRoot(List.of(vector)), e.getValue(), e.getValue().get(0).length(), allocator, at);
            }
            ArrowDictionaries.attach(root, provider);
            return root;
        } catch (RuntimeException e) {
            provider.close();
            dictionaries.values().forEach(d -> d.getVector().close());
            if (root != null) {
                root.close();
            }
            throw e;
        }
    }

    /**
     * The root of a schema with dictionary-encoded columns in Arrow Java's memory form (their index
     * vectors); their dictionaries' (empty) vectors go into {@code dictionaries} and {@code provider},
     * which the caller closes if anything fails.
     */
    private static VectorSchemaRoot memoryFormRoot(Schema schema, BufferAllocator allocator,
            java.util.Map<Long, Dictionary> dictionaries, DictionaryProvider.MapDictionaryProvider provider, long at) {
        List<Field> memory = new ArrayList<>();
        for (Field f : schema.getFields()) {
            memory.add(DictionaryUtility.toMemoryFormat(f, allocator, dictionaries));
        }
        dictionaries.values().forEach(provider::put);
        return createRoot(new Schema(memory, schema.getCustomMetadata()), allocator, at);
    }

    /**
     * A table of no batches whose schema has dictionary-encoded columns: an empty root of their index
     * vectors with empty dictionaries attached, the form Java holds such a table in (without them the
     * table could not be written back).
     */
    static VectorSchemaRoot emptyWithDictionaries(Schema schema, BufferAllocator allocator, long at) {
        java.util.Map<Long, Dictionary> dictionaries = new java.util.LinkedHashMap<>();
        DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
        VectorSchemaRoot root = null;
        try {
            root = memoryFormRoot(schema, allocator, dictionaries, provider, at);
            // Sized for no values: Arrow's own first size is thousands of slots, which for a fixed-size
            // binary of a few megabytes a value (a frame of a few hundred bytes) asked for gigabytes.
            for (FieldVector v : root.getFieldVectors()) {
                allocateEmpty(v);
            }
            root.setRowCount(0);
            for (Dictionary d : dictionaries.values()) {
                allocateEmpty(d.getVector());
                d.getVector().setValueCount(0);
            }
            ArrowDictionaries.attach(root, provider);
            return root;
        } catch (RuntimeException e) {
            dictionaries.values().forEach(d -> d.getVector().close());
            if (root != null) {
                root.close();
            }
            if (e instanceof DeserializationException d) {
                throw d;
            }
            throw new DeserializationException("Arrow Java cannot build the dictionaries of a table of no batches"
                    + " (schema " + schema + "): " + e, at, e);
        }
    }

    /** Allocates {@code v} (and its children) for no values. */
    private static void allocateEmpty(FieldVector v) {
        setEmptyCapacity(v);
        v.allocateNew();
    }

    private static void setEmptyCapacity(FieldVector v) {
        v.setInitialCapacity(0); // a parent sets its children's too: they come after it and set their own
        for (FieldVector child : v.getChildrenFromFields()) {
            setEmptyCapacity(child);
        }
    }

    /** Loads {@code nodes} (pre-order, with their buffers) into {@code root}, a view of the frame's memory. */
    private static void load(VectorSchemaRoot root, List<ArrowNodeChecks.Node> nodes, long rows, BufferAllocator allocator, long at) {
        List<ArrowFieldNode> fieldNodes = new ArrayList<>(nodes.size());
        List<ArrowBuf> buffers = new ArrayList<>();
        List<Long> variadic = new ArrayList<>();
        try {
            for (ArrowNodeChecks.Node node : nodes) {
                fieldNodes.add(new ArrowFieldNode(node.length(), node.nullCount()));
                if (ArrowBatchCodec.isView(node.field().getType())) {
                    variadic.add((long) node.buffers().size() - 2);
                }
                for (ByteBuffer b : node.buffers()) {
                    buffers.add(FrameMemory.wrap(allocator, b));
                }
            }
            try (org.apache.arrow.vector.ipc.message.ArrowRecordBatch batch =
                         new org.apache.arrow.vector.ipc.message.ArrowRecordBatch((int) rows, fieldNodes, buffers,
                                 org.apache.arrow.vector.compression.NoCompressionCodec.DEFAULT_BODY_COMPRESSION, variadic,
                                 false)) {
                // Arrow Java's ValueVectorUtility.validate/validateFull are not used: they reject valid
                // frames (maps, decimals in null slots); ArrowNodeChecks.checkBatch covered what loading needs.
                new VectorLoader(root).load(batch);
                restoreLengths(root, nodes);
            } catch (RuntimeException e) {
                throw new DeserializationException("Arrow could not load the batch: " + e.getMessage(), at, e);
            }
        } finally {
            buffers.forEach(ArrowBuf::close);
        }
    }

    /**
     * Sends the nodes of message-format field {@code f} (pre-order, as the frame has them) to the
     * root's list or, for a dictionary's values, to that dictionary's list.
     */
    private static void distribute(Field f, List<ArrowNodeChecks.Node> nodes, int[] next, List<ArrowNodeChecks.Node> target,
                                   java.util.Map<Long, List<ArrowNodeChecks.Node>> dictionaryNodes, long at) {
        DictionaryEncoding encoding = f.getDictionary();
        target.add(nodes.get(next[0]++));
        List<ArrowNodeChecks.Node> own = target;
        if (encoding != null) {
            own = new ArrayList<>();
            if (dictionaryNodes.put(encoding.getId(), own) != null) {
                throw new DeserializationException("two fields name Arrow dictionary " + encoding.getId(), at);
            }
            own.add(nodes.get(next[0]++));  // the dictionary's own node, then its children's
        }
        for (Field child : f.getChildren()) {
            distribute(child, nodes, next, own, dictionaryNodes, at);
        }
    }

    /**
     * The field whose pre-order gives the frame's nodes: a dictionary-encoded field becomes its index
     * field, with the dictionary's values (a field of the value type) as its one child.
     */
    private static Field checkField(Field f) {
        List<Field> children = new ArrayList<>();
        for (Field child : f.getChildren()) {
            children.add(checkField(child));
        }
        DictionaryEncoding encoding = f.getDictionary();
        if (encoding == null) {
            return new Field(f.getName(), f.getFieldType(), children);
        }
        ArrowType.Int index = encoding.getIndexType() != null ? encoding.getIndexType() : new ArrowType.Int(32, true);
        Field values = new Field(f.getName(), new FieldType(true, f.getType(), null), children);
        return new Field(f.getName(), new FieldType(f.isNullable(), index, null, f.getMetadata()), List.of(values));
    }

    /**
     * Gives every vector the length its node says again. Setting the row count makes parents set
     * their children's lengths from their own layout, which is wrong for some: a DenseUnionVector
     * counts each child's type ids (its offsets need not be ranks), a run-end encoded child under a
     * list is left empty. Pre-order, so a parent's setting is corrected by its children's own.
     */
    private static void restoreLengths(VectorSchemaRoot root, List<ArrowNodeChecks.Node> nodes) {
        List<FieldVector> vectors = new ArrayList<>(nodes.size());
        for (FieldVector v : root.getFieldVectors()) {
            flatten(v, vectors);
        }
        int count = Math.min(vectors.size(), nodes.size());
        // First mark every variable-width and list vector set up to its node's length: a parent set
        // longer again below sets its children longer too, and a child that forgot its later slots
        // would have setValueCount write empty offsets over them (into the frame's memory).
        for (int i = 0; i < count; i++) {
            markSet(vectors.get(i), (int) nodes.get(i).length());
        }
        for (int i = 0; i < count; i++) {
            FieldVector v = vectors.get(i);
            int length = (int) nodes.get(i).length();
            if (v.getValueCount() != length) {
                markSet(v, length);
                v.setValueCount(length);
            }
        }
    }

    private static void markSet(FieldVector v, int length) {
        if (v instanceof BaseVariableWidthVector var) {
            var.setLastSet(length - 1);
        } else if (v instanceof BaseLargeVariableWidthVector large) {
            large.setLastSet(length - 1);
        } else if (v instanceof org.apache.arrow.vector.BaseVariableWidthViewVector view) {
            view.setLastSet(length - 1);
        } else if (v instanceof org.apache.arrow.vector.complex.ListVector list) {
            list.setLastSet(length - 1);
        } else if (v instanceof org.apache.arrow.vector.complex.LargeListVector list) {
            list.setLastSet(length - 1);
        }
    }

    /** Depth-first pre-order, as the field nodes of an IPC RecordBatch. */
    private static void flatten(FieldVector v, List<FieldVector> out) {
        out.add(v);
        for (FieldVector child : v.getChildrenFromFields()) {
            flatten(child, out);
        }
    }

    private static void flatten(Field f, List<Field> out) {
        out.add(f);
        for (Field child : f.getChildren()) {
            flatten(child, out);
        }
    }
}
