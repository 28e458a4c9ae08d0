package serreg.arrow;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;
import serreg.TestFiles;
import serreg.TestFrames;
import serreg.wire.FrameReader;
import serreg.wire.FrameView;

/**
 * Arrow frames built part by part for the hostile-frame tests (docs/FORMAT.md 9.5): the parts of
 * python/arrow_table.frame ({@link Parts}), an {@code ArrowTable} frame of a schema, nodes and
 * buffers ({@link #table}), an encapsulated IPC schema built field by field ({@link #ipcSchema}),
 * a schema description ({@link #schema}, {@link #field}, {@link #type}), little-endian buffers.
 */
final class HostileArrowFrames {
    private HostileArrowFrames() {
    }

    /** The parts of python/arrow_table.frame: {a: int64 [1, null, 3], s: utf8 ["x", "yy", null]}. */
    static final class Parts {
        final byte[] schema;
        final long rows;
        final long[][] nodes;
        final List<byte[]> buffers;

        Parts() throws IOException {
            ByteBuffer frame = ByteBuffer.wrap(TestFiles.read(TestFiles.vectors("python").resolve("arrow_table.frame")));
            FrameView r = FrameReader.read(frame);
            ByteBuffer inBand = r.inBand();
            inBand.position(8);
            List<Value> doc = MessagePack.newDefaultUnpacker(inBand).unpackValue().asArrayValue().list();
            schema = doc.get(0).asBinaryValue().asByteArray();
            List<Value> batch = doc.get(1).asArrayValue().get(0).asArrayValue().list();
            rows = batch.get(0).asIntegerValue().asLong();
            List<Value> nodeValues = batch.get(1).asArrayValue().list();
            nodes = new long[nodeValues.size()][];
            for (int i = 0; i < nodes.length; i++) {
                nodes[i] = nodeValues.get(i).asArrayValue().list().stream().mapToLong(v -> v.asIntegerValue().asLong()).toArray();
            }
            buffers = new ArrayList<>(r.outOfBand().stream().map(TestFiles::bytes).toList());
        }
    }

    static byte[] table(byte[] schema, long rows, long[][] nodes, List<byte[]> buffers) {
        return table(p -> p.packBinaryHeader(schema.length).writePayload(schema), rows, nodes, buffers);
    }

    static byte[] table(TestFrames.Packing schema, long rows, long[][] nodes, List<byte[]> buffers) {
        byte[] inBand = TestFrames.msgpack(p -> {
            p.packArrayHeader(2);
            schema.pack(p);
            p.packArrayHeader(1).packArrayHeader(2).packLong(rows).packArrayHeader(nodes.length);
            for (long[] node : nodes) {
                p.packArrayHeader(node.length);
                for (long v : node) {
                    p.packLong(v);
                }
            }
        });
        return TestFrames.rawFrame("ArrowTable", inBand, buffers.toArray(byte[][]::new));
    }

    static long[][] copy(long[][] nodes) {
        long[][] out = new long[nodes.length][];
        for (int i = 0; i < nodes.length; i++) {
            out[i] = nodes[i].clone();
        }
        return out;
    }

    static byte[] int32s(int... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    static byte[] int64s(long... values) {
        ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    /** An encapsulated IPC Schema message (continuation marker, length, flatbuffer) built field by field. */
    static byte[] ipcSchema(java.util.function.ToIntFunction<com.google.flatbuffers.FlatBufferBuilder> fields) {
        com.google.flatbuffers.FlatBufferBuilder b = new com.google.flatbuffers.FlatBufferBuilder();
        int fieldVector = fields.applyAsInt(b);
        int schema = org.apache.arrow.flatbuf.Schema.createSchema(b, org.apache.arrow.flatbuf.Endianness.Little, fieldVector, 0, 0);
        int message = org.apache.arrow.flatbuf.Message.createMessage(b, org.apache.arrow.flatbuf.MetadataVersion.V5,
                org.apache.arrow.flatbuf.MessageHeader.Schema, schema, 0, 0);
        b.finish(message);
        byte[] flatbuffer = b.sizedByteArray();
        int padded = (flatbuffer.length + 7) / 8 * 8;
        return ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN).putInt(-1).putInt(padded).put(flatbuffer).array();
    }

    static int nullField(com.google.flatbuffers.FlatBufferBuilder b, String name, int metadata) {
        int n = name == null ? 0 : b.createString(name);
        org.apache.arrow.flatbuf.Null.startNull(b);
        int type = org.apache.arrow.flatbuf.Null.endNull(b);
        return org.apache.arrow.flatbuf.Field.createField(b, n, true, org.apache.arrow.flatbuf.Type.Null, type, 0,
                org.apache.arrow.flatbuf.Field.createChildrenVector(b, new int[0]), metadata);
    }

    static int structField(com.google.flatbuffers.FlatBufferBuilder b, String name, int... children) {
        int n = b.createString(name);
        org.apache.arrow.flatbuf.Struct_.startStruct_(b);
        int type = org.apache.arrow.flatbuf.Struct_.endStruct_(b);
        return org.apache.arrow.flatbuf.Field.createField(b, n, true, org.apache.arrow.flatbuf.Type.Struct_, type, 0,
                org.apache.arrow.flatbuf.Field.createChildrenVector(b, children), 0);
    }

    /** A field of the schema description of docs/FORMAT.md 9.5. */
    interface Desc extends TestFrames.Packing {
    }

    static Desc field(String name, Desc type, boolean nullable, Desc... children) {
        return p -> {
            p.packArrayHeader(5).packString(name);
            type.pack(p);
            p.packBoolean(nullable).packNil().packArrayHeader(children.length);
            for (Desc c : children) {
                c.pack(p);
            }
        };
    }

    static Desc type(Object... parts) {
        return p -> {
            p.packArrayHeader(parts.length);
            for (Object part : parts) {
                if (part instanceof String s) {
                    p.packString(s);
                } else if (part instanceof Boolean b) {
                    p.packBoolean(b);
                } else if (part == null) {
                    p.packNil();
                } else {
                    p.packLong(((Number) part).longValue());
                }
            }
        };
    }

    static TestFrames.Packing schema(Desc... fields) {
        return p -> {
            p.packArrayHeader(2).packArrayHeader(fields.length);
            for (Desc f : fields) {
                f.pack(p);
            }
            p.packNil();
        };
    }
}
