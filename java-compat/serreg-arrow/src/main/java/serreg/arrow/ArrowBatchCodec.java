package serreg.arrow;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.DictionaryUtility;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.SerializationException;

/**
 * The Arrow in-band of docs/FORMAT.md section 6.4, written, and its schema, read: the schema as
 * an IPC Schema message, and per batch [row count, nodes [length, null count, buffer count]] with
 * the node buffers as OOB buffers in IPC body order (the Java twin of the writing half of Python's
 * {@code serializers/arrow_frames.py} and {@code arrow_nodes.py}). Buffers move by reference:
 * writing hands out views of the vectors' memory. Batches are read back by {@link ArrowBatchReader}.
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
            schema = ArrowIpcCheck.readIpcSchema(in.readBinaryView(), at, in);
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
                String problem = ArrowNodeChecks.legacyValueProblem(type, v.getValueCount(), buffers.get(first), buffers.get(first + 1));
                if (problem != null) {
                    throw new SerializationException("Arrow field '" + v.getName() + "' (" + type + ") breaks Arrow's full"
                            + " validation, which every reader runs: " + problem);
                }
            }
        }
        buffers.forEach(out::addOutOfBand);
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

    /** Binary and string views: validity, views, then any number of data buffers. */
    static boolean isView(ArrowType type) {
        return type instanceof ArrowType.Utf8View || type instanceof ArrowType.BinaryView;
    }

    private static boolean hasValidity(FieldVector v) {
        return !TypeLayout.getTypeLayout(v.getField().getType()).getBufferTypes().isEmpty()
                && TypeLayout.getTypeLayout(v.getField().getType()).getBufferTypes().get(0)
                        .equals(org.apache.arrow.vector.BufferLayout.BufferType.VALIDITY);
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
