package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.ExtensionTypeRegistry;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import serreg.DeserializationException;
import serreg.Hostile;
import serreg.LimitExceededException;
import serreg.TestFrames;

/**
 * What an Arrow frame may cost Java (docs/FORMAT.md sections 4.3 and 4.4): a schema message whose
 * parts are shared (a DAG) is refused before Arrow Java copies them once per reference; fields,
 * nodes and batches are charged against memoryAllowance + memoryPerByte x frame size before they
 * are built; an extension type's deserializer never sees the frame's bytes. Each of these frames
 * made c2967a7 die of OutOfMemoryError or allocate hundreds of MiB.
 */
class ArrowBudgetTest extends CappedArrowRegistry {
    ArrowBudgetTest() {
        super(64 << 20);
    }

    private DeserializationException refused(byte[] frame, String what) {
        for (boolean trusted : new boolean[] {true, false}) {
            Object outcome;
            try {
                outcome = registry.deserialize(ByteBuffer.wrap(frame), trusted);
            } catch (DeserializationException e) {
                Hostile.checkDeliberate(e, what);
                outcome = e;
            } catch (Throwable t) {
                throw new AssertionError(what + ": " + t, t);
            }
            Hostile.release(outcome);
            assertInstanceOf(DeserializationException.class, outcome, what + " (trusted=" + trusted + ")");
            if (!trusted) {
                return (DeserializationException) outcome;
            }
        }
        throw new AssertionError();
    }

    /** 3,500 null fields that all name one 32 KiB string: 46 KB of frame, 112 MiB of names once copied. */
    static byte[] sharedNameFrame() {
        byte[] schema = HostileArrowFrames.ipcSchema(b -> {
            int name = b.createString("n".repeat(32 << 10));
            int[] fields = new int[3500];
            for (int i = 0; i < fields.length; i++) {
                org.apache.arrow.flatbuf.Null.startNull(b);
                int type = org.apache.arrow.flatbuf.Null.endNull(b);
                fields[i] = org.apache.arrow.flatbuf.Field.createField(b, name, true, org.apache.arrow.flatbuf.Type.Null,
                        type, 0, org.apache.arrow.flatbuf.Field.createChildrenVector(b, new int[0]), 0);
            }
            return org.apache.arrow.flatbuf.Schema.createFieldsVector(b, fields);
        });
        return HostileArrowFrames.table(schema, 0, new long[0][], List.of());
    }

    /** One field table listed 10,000 times in the schema's field vector. */
    static byte[] sharedFieldFrame() {
        byte[] schema = HostileArrowFrames.ipcSchema(b -> {
            int field = HostileArrowFrames.nullField(b, "x".repeat(1000), 0);
            int[] fields = new int[10_000];
            java.util.Arrays.fill(fields, field);
            return org.apache.arrow.flatbuf.Schema.createFieldsVector(b, fields);
        });
        return HostileArrowFrames.table(schema, 0, new long[0][], List.of());
    }

    /** Two fields with names of their own and one Int type table between them (Python refuses it too). */
    static byte[] sharedTypeFrame() {
        byte[] schema = HostileArrowFrames.ipcSchema(b -> {
            int type = org.apache.arrow.flatbuf.Int.createInt(b, 32, true);
            int[] fields = new int[2];
            for (int i = 0; i < 2; i++) {
                fields[i] = org.apache.arrow.flatbuf.Field.createField(b, b.createString("f" + i), true,
                        org.apache.arrow.flatbuf.Type.Int, type, 0,
                        org.apache.arrow.flatbuf.Field.createChildrenVector(b, new int[0]), 0);
            }
            return org.apache.arrow.flatbuf.Schema.createFieldsVector(b, fields);
        });
        return HostileArrowFrames.table(schema, 0, new long[][] {{0, 0, 2}, {0, 0, 2}}, List.of(new byte[0], new byte[0],
                new byte[0], new byte[0]));
    }

    @Test
    void schemaMessagesWhoseStringsOrFieldsAreSharedAreRefusedBeforeArrowReadsThem() {
        for (byte[] frame : List.of(sharedNameFrame(), sharedFieldFrame(), sharedTypeFrame())) {
            DeserializationException e = refused(frame, "a DAG of " + frame.length + " bytes");
            assertTrue(e.getMessage().contains("reached a second time"), e.getMessage());
        }
    }

    @Test
    void manyEmptyBatchesAreChargedAndRefused() {
        // 200,000 empty batches of one null column in 1.4 MB: each costs Java a root, a vector and a
        // node whatever its rows, so the frame asks for far more than 32 MiB + 16 x its size.
        byte[] schema = HostileArrowFrames.ipcSchema(b -> org.apache.arrow.flatbuf.Schema.createFieldsVector(b,
                new int[] {HostileArrowFrames.nullField(b, "a", 0)}));
        int batches = 200_000;
        byte[] inBand = TestFrames.msgpack(p -> {
            p.packArrayHeader(2).packBinaryHeader(schema.length).writePayload(schema);
            p.packArrayHeader(batches);
            for (int i = 0; i < batches; i++) {
                p.packArrayHeader(2).packLong(0).packArrayHeader(1).packArrayHeader(3).packLong(0).packLong(0).packLong(0);
            }
        });
        byte[] frame = TestFrames.rawFrame("ArrowTable", inBand);
        DeserializationException e = refused(frame, "200,000 empty batches");
        assertInstanceOf(LimitExceededException.class, e);
        assertTrue(e.getMessage().contains("Arrow batch"), e.getMessage());
        // A handful of batches is still read.
        byte[] few = TestFrames.rawFrame("ArrowTable", TestFrames.msgpack(p -> {
            p.packArrayHeader(2).packBinaryHeader(schema.length).writePayload(schema);
            p.packArrayHeader(3);
            for (int i = 0; i < 3; i++) {
                p.packArrayHeader(2).packLong(0).packArrayHeader(1).packArrayHeader(3).packLong(0).packLong(0).packLong(0);
            }
        }));
        Object value = registry.deserialize(ByteBuffer.wrap(few), false);
        assertInstanceOf(VectorSchemaRoot.class, value);
        Hostile.release(value);
    }

    @Test
    void manyColumnsAreChargedBeforeArrowBuildsThem() {
        // 60,000 null columns with one-letter names: about 1.3 MB of schema, 60,000 Fields and vectors.
        int columns = 60_000;
        byte[] schema = HostileArrowFrames.ipcSchema(b -> {
            int[] fields = new int[columns];
            for (int i = 0; i < columns; i++) {
                fields[i] = HostileArrowFrames.nullField(b, Integer.toString(i, 36), 0);
            }
            return org.apache.arrow.flatbuf.Schema.createFieldsVector(b, fields);
        });
        long[][] nodes = new long[columns][];
        for (int i = 0; i < columns; i++) {
            nodes[i] = new long[] {0, 0, 0};
        }
        DeserializationException e = refused(HostileArrowFrames.table(schema, 0, nodes, List.of()), "60,000 columns");
        assertInstanceOf(LimitExceededException.class, e);
        // With a larger budget the same frame is read.
        Object value = registry.deserialize(ByteBuffer.wrap(HostileArrowFrames.table(schema, 0, nodes, List.of())),
                serreg.Limits.DEFAULT.withMemoryPerByte(1024), false);
        assertEquals(columns, ((VectorSchemaRoot) value).getFieldVectors().size());
        Hostile.release(value);
    }

    /** An extension type that counts how often Arrow Java asked it to deserialize a frame's metadata. */
    static final class Spy extends ArrowType.ExtensionType {
        static final AtomicInteger CALLS = new AtomicInteger();

        @Override
        public ArrowType storageType() {
            return ArrowType.Null.INSTANCE;
        }

        @Override
        public String extensionName() {
            return "serreg.test.spy";
        }

        @Override
        public boolean extensionEquals(ArrowType.ExtensionType other) {
            return other instanceof Spy;
        }

        @Override
        public ArrowType deserialize(ArrowType storageType, String serializedData) {
            CALLS.incrementAndGet();
            return new Spy();
        }

        @Override
        public String serialize() {
            return "";
        }

        @Override
        public FieldVector getNewVector(String name, FieldType fieldType, BufferAllocator allocator) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void extensionTypeMetadataIsRefusedBeforeAnyExtensionDeserializerRuns() {
        ExtensionTypeRegistry.register(new Spy());
        try {
            for (String key : List.of("ARROW:extension:name", "ARROW:extension:metadata")) {
                byte[] schema = HostileArrowFrames.ipcSchema(b -> {
                    int kv = org.apache.arrow.flatbuf.KeyValue.createKeyValue(b, b.createString(key),
                            b.createString(key.endsWith("name") ? "serreg.test.spy" : "payload"));
                    int name = org.apache.arrow.flatbuf.KeyValue.createKeyValue(b, b.createString("ARROW:extension:name"),
                            b.createString("serreg.test.spy"));
                    int[] entries = key.endsWith("name") ? new int[] {kv} : new int[] {kv, name};
                    int metadata = org.apache.arrow.flatbuf.Field.createCustomMetadataVector(b, entries);
                    return org.apache.arrow.flatbuf.Schema.createFieldsVector(b,
                            new int[] {HostileArrowFrames.nullField(b, "e", metadata)});
                });
                DeserializationException e = refused(HostileArrowFrames.table(schema, 0, new long[][] {{0, 0, 0}}, List.of()), key);
                assertTrue(e.getMessage().contains("extension"), e.getMessage());
            }
            assertEquals(0, Spy.CALLS.get(), "no extension deserializer saw the frame's metadata");
        } finally {
            ExtensionTypeRegistry.unregister(new Spy());
        }
        assertFalse(Spy.CALLS.get() > 0);
    }
}
