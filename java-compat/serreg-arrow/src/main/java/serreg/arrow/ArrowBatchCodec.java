package serreg.arrow;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
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
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
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
import serreg.InBandWriter;
import serreg.SerializationException;

/**
 * The Arrow in-band of docs/FORMAT.md section 6.4: the schema as an IPC Schema message, and per
 * batch [row count, nodes [length, null count, buffer count]] with the node buffers as OOB
 * buffers in IPC body order. Buffers move by reference both ways: writing hands out views of the
 * vectors' memory, reading wraps the frame's memory as ArrowBufs (see {@link FrameMemory}).
 */
final class ArrowBatchCodec {
    private ArrowBatchCodec() {
    }

    /** The IPC Schema message of {@code root}: dictionary-encoded columns in message format (their value types). */
    static byte[] schemaBytes(VectorSchemaRoot root) {
        Schema schema = messageSchema(root);
        for (Field field : schema.getFields()) {
            checkSupported(field);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            MessageSerializer.serialize(new WriteChannel(Channels.newChannel(bytes)), schema);
        } catch (IOException e) {
            throw new SerializationException("could not write the Arrow schema", e);
        }
        return bytes.toByteArray();
    }

    /**
     * Reads the schema: an IPC Schema message (bin), or the msgpack schema description of a
     * canonical frame (array). Either way it is checked against the standard types of section 6.4
     * before any vector is made from it.
     */
    static Schema readSchema(InBandReader in) {
        long at = in.offset();
        Schema schema;
        if (in.nextFormat().getValueType() == org.msgpack.value.ValueType.ARRAY) {
            // A canonical frame describes the schema in msgpack (docs/FORMAT.md, section 9.5).
            schema = SchemaDescription.read(in.readValue(), at);
        } else {
            schema = ArrowChecks.readIpcSchema(in.readBinaryView(), at, in);
        }
        ArrowChecks.checkSchema(schema, at);
        return schema;
    }

    /**
     * {@code root}'s schema with every dictionary-encoded field in message format (its dictionary's
     * value type and children, as the IPC schema has it), from {@link ArrowDictionaries#of}.
     */
    static Schema messageSchema(VectorSchemaRoot root) {
        Schema schema = root.getSchema();
        if (schema.getFields().stream().noneMatch(DictionaryUtility::needConvertToMessageFormat)) {
            return schema;
        }
        DictionaryProvider provider = ArrowDictionaries.of(root);
        if (provider == null) {
            throw new SerializationException("the root has dictionary-encoded columns but no dictionaries; give them"
                    + " with ArrowDictionaries.attach(root, provider)");
        }
        List<Field> fields = new ArrayList<>();
        for (Field field : schema.getFields()) {
            fields.add(DictionaryUtility.toMessageFormat(field, provider, new java.util.HashSet<>()));
        }
        return new Schema(fields, schema.getCustomMetadata());
    }

    /** Writes one batch holding all of {@code root}'s rows. Validity of a node without nulls is sent as a zero-length buffer. */
    static void writeBatch(VectorSchemaRoot root, InBandWriter out) {
        List<FieldVector> vectors = new ArrayList<>();
        DictionaryProvider provider = ArrowDictionaries.of(root);
        for (FieldVector v : root.getFieldVectors()) {
            flattenWire(v, vectors, provider);
        }
        out.writeArrayHeader(2).writeLong(root.getRowCount()).writeArrayHeader(vectors.size());
        List<ByteBuffer> buffers = new ArrayList<>();
        for (FieldVector v : vectors) {
            ArrowType type = v.getField().getType();
            // A union or run-end encoded node has no validity of its own: its nulls are its children's.
            boolean ownNulls = !(type instanceof ArrowType.Union || type instanceof ArrowType.RunEndEncoded);
            int nullCount = ownNulls ? v.getNullCount() : 0;
            List<ArrowBuf> fieldBuffers = v.getFieldBuffers();
            int expected = isView(type) ? fieldBuffers.size() : TypeLayout.getTypeBufferCount(type);
            if (fieldBuffers.size() != expected) {
                throw new SerializationException("Arrow vector '" + v.getName() + "' has " + fieldBuffers.size()
                        + " buffers where its type " + v.getField().getType() + " has " + expected);
            }
            out.writeArrayHeader(3).writeLong(v.getValueCount()).writeLong(nullCount).writeLong(expected);
            int first = buffers.size();
            for (int i = 0; i < fieldBuffers.size(); i++) {
                ArrowBuf buf = fieldBuffers.get(i);
                boolean absentValidity = i == 0 && nullCount == 0 && hasValidity(v);
                buffers.add(absentValidity ? ByteBuffer.allocate(0) : FrameMemory.view(buf, buf.writerIndex()));
            }
            if (fieldBuffers.size() == 2) {
                String problem = ArrowChecks.legacyValueProblem(type, v.getValueCount(), buffers.get(first), buffers.get(first + 1));
                if (problem != null) {
                    throw new SerializationException("Arrow field '" + v.getName() + "' (" + type + ") breaks Arrow's full"
                            + " validation, which every reader runs: " + problem);
                }
            }
        }
        buffers.forEach(out::addOutOfBand);
    }

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
     * The nodes are checked against the schema and the buffers ({@link ArrowChecks#checkBatch})
     * before Arrow Java loads them. Zero-copy when the buffers are direct: the vectors are views
     * of the frame.
     */
    /** Heap bytes Arrow Java takes for a batch's root, and per vector and per ArrowBuf (measured, rounded up). */
    static final long BATCH_COST = 512;
    static final long NODE_COST = 1024;
    static final long BUFFER_COST = 256;

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
        List<ArrowChecks.Node> nodes = new ArrayList<>(nodeCount);
        List<Long> variadic = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            long nodeAt = in.offset();
            in.readArrayHeader(3, "an Arrow node");
            long length = in.readLong(0, Integer.MAX_VALUE, "node length");
            long nulls = in.readLong(0, length, "node null count");
            ArrowType type = fields.get(i).getType();
            boolean view = isView(type);
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
            nodes.add(new ArrowChecks.Node(fields.get(i), length, nulls, nodeBuffers, nodeAt));
        }
        ArrowChecks.checkBatch(rows, nodes, checkFields, in);
        long bufferCount = 0;
        for (ArrowChecks.Node node : nodes) {
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
            List<Field> memory = new ArrayList<>();
            for (Field f : schema.getFields()) {
                memory.add(DictionaryUtility.toMemoryFormat(f, allocator, dictionaries));
            }
            dictionaries.values().forEach(provider::put);
            root = createRoot(new Schema(memory, schema.getCustomMetadata()), allocator, at);
            List<ArrowChecks.Node> rootNodes = new ArrayList<>();
            java.util.Map<Long, List<ArrowChecks.Node>> dictionaryNodes = new java.util.LinkedHashMap<>();
            int[] next = {0};
            for (Field f : schema.getFields()) {
                distribute(f, nodes, next, rootNodes, dictionaryNodes, at);
            }
            load(root, rootNodes, rows, allocator, at);
            for (java.util.Map.Entry<Long, List<ArrowChecks.Node>> e : dictionaryNodes.entrySet()) {
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

    /** Loads {@code nodes} (pre-order, with their buffers) into {@code root}, a view of the frame's memory. */
    private static void load(VectorSchemaRoot root, List<ArrowChecks.Node> nodes, long rows, BufferAllocator allocator, long at) {
        List<ArrowFieldNode> fieldNodes = new ArrayList<>(nodes.size());
        List<ArrowBuf> buffers = new ArrayList<>();
        List<Long> variadic = new ArrayList<>();
        try {
            for (ArrowChecks.Node node : nodes) {
                fieldNodes.add(new ArrowFieldNode(node.length(), node.nullCount()));
                if (isView(node.field().getType())) {
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
                // frames (maps, decimals in null slots); ArrowChecks.checkBatch covered what loading needs.
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
    private static void distribute(Field f, List<ArrowChecks.Node> nodes, int[] next, List<ArrowChecks.Node> target,
                                   java.util.Map<Long, List<ArrowChecks.Node>> dictionaryNodes, long at) {
        DictionaryEncoding encoding = f.getDictionary();
        target.add(nodes.get(next[0]++));
        List<ArrowChecks.Node> own = target;
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

    /** Pre-order with each dictionary-encoded vector's dictionary after it, as the frame has them. */
    private static void flattenWire(FieldVector v, List<FieldVector> out, DictionaryProvider provider) {
        out.add(v);
        DictionaryEncoding encoding = v.getField().getDictionary();
        if (encoding != null) {
            Dictionary dictionary = provider == null ? null : provider.lookup(encoding.getId());
            if (dictionary == null) {
                throw new SerializationException("Arrow column '" + v.getName() + "' names dictionary " + encoding.getId()
                        + ", which the root's ArrowDictionaries do not hold");
            }
            flattenWire(dictionary.getVector(), out, provider);
            return;
        }
        for (FieldVector child : v.getChildrenFromFields()) {
            flattenWire(child, out, provider);
        }
    }

    /**
     * Gives every vector the length its node says again. Setting the row count makes parents set
     * their children's lengths from their own layout, which is wrong for some: a DenseUnionVector
     * counts each child's type ids (its offsets need not be ranks), a run-end encoded child under a
     * list is left empty. Pre-order, so a parent's setting is corrected by its children's own.
     */
    private static void restoreLengths(VectorSchemaRoot root, List<ArrowChecks.Node> nodes) {
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

    /** Binary and string views: validity, views, then any number of data buffers. */
    static boolean isView(ArrowType type) {
        return type instanceof ArrowType.Utf8View || type instanceof ArrowType.BinaryView;
    }

    private static boolean hasValidity(FieldVector v) {
        return !TypeLayout.getTypeLayout(v.getField().getType()).getBufferTypes().isEmpty()
                && TypeLayout.getTypeLayout(v.getField().getType()).getBufferTypes().get(0)
                        .equals(org.apache.arrow.vector.BufferLayout.BufferType.VALIDITY);
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

    private static void checkSupported(Field field) {
        switch (field.getType().getTypeID()) {
            case Interval -> {
                if (((ArrowType.Interval) field.getType()).getUnit() != org.apache.arrow.vector.types.IntervalUnit.MONTH_DAY_NANO) {
                    throw new SerializationException("Arrow field '" + field.getName() + "' has type " + field.getType()
                            + "; Python cannot hold such intervals, serreg carries MONTH_DAY_NANO only");
                }
            }
            case Decimal -> {
                // Arrow Java 18 makes a 128-bit DecimalVector for any width other than 256, so a
                // 32- or 64-bit column would be read with the wrong stride: refuse it.
                int bits = ((org.apache.arrow.vector.types.pojo.ArrowType.Decimal) field.getType()).getBitWidth();
                if (bits != 128 && bits != 256) {
                    throw new SerializationException("Arrow field '" + field.getName() + "' is a " + bits
                            + "-bit decimal, which Arrow Java has no vector for (only 128 and 256 bits)");
                }
            }
            default -> {
            }
        }
        for (Field child : field.getChildren()) {
            checkSupported(child);
        }
    }
}
