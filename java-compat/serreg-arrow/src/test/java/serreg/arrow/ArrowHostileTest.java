package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;
import serreg.DeserializationException;
import serreg.Hostile;
import serreg.LimitExceededException;
import serreg.SerializerRegistry;
import serreg.TestFiles;
import serreg.TestFrames;
import serreg.arrow.ArrowSerializers;
import serreg.wire.FrameReader;
import serreg.wire.FrameView;

/** Arrow frames whose schema, nodes or buffers lie: a DeserializationException, never a crash or a large allocation. */
class ArrowHostileTest {
    private RootAllocator allocator;
    private SerializerRegistry registry;

    @BeforeEach
    void registry() {
        // A registry of its own whose Arrow memory is capped, so an allocation the checks miss fails loudly.
        allocator = new RootAllocator(8 << 20);
        registry = new SerializerRegistry();
        ArrowSerializers.registerWith(registry, allocator);
    }

    @AfterEach
    void allocatorIsEmpty() {
        assertEquals(0, allocator.getAllocatedMemory(), "every Arrow buffer was released");
        allocator.close();
    }

    /** The parts of python/arrow_table.frame: {a: int64 [1, null, 3], s: utf8 ["x", "yy", null]}. */
    private static final class Parts {
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

    private DeserializationException error(byte[] frame, String what) {
        Object outcome = Hostile.decode(registry, frame, what);
        return assertInstanceOf(DeserializationException.class, outcome, what + ": decoded to " + outcome);
    }

    private static long[][] copy(long[][] nodes) {
        long[][] out = new long[nodes.length][];
        for (int i = 0; i < nodes.length; i++) {
            out[i] = nodes[i].clone();
        }
        return out;
    }

    @Test
    void nodesThatDoNotMatchTheSchemaOrTheBuffers() throws IOException {
        Parts t = new Parts();
        Object ok = Hostile.decode(registry, table(t.schema, t.rows, t.nodes, t.buffers), "unchanged");
        assertInstanceOf(VectorSchemaRoot.class, ok);
        Hostile.release(ok);

        List<long[][]> nodeCases = new ArrayList<>();
        nodeCases.add(new long[][] {t.nodes[0]});
        nodeCases.add(new long[][] {t.nodes[0], t.nodes[1], {1, 0, 2}});
        long[][] wrongCount = copy(t.nodes);
        wrongCount[0][2] = 3;
        nodeCases.add(wrongCount);
        long[][] negative = copy(t.nodes);
        negative[0][0] = -1;
        nodeCases.add(negative);
        long[][] tooManyNulls = copy(t.nodes);
        tooManyNulls[0][1] = 4;
        nodeCases.add(tooManyNulls);
        long[][] shortColumn = copy(t.nodes);
        shortColumn[1][0] = 2;
        nodeCases.add(shortColumn);
        for (long[][] nodes : nodeCases) {
            error(table(t.schema, t.rows, nodes, t.buffers), "nodes " + java.util.Arrays.deepToString(nodes));
        }
        error(table(t.schema, t.rows + 1, t.nodes, t.buffers), "row count mismatch");
        error(table(t.schema, -1, t.nodes, t.buffers), "negative row count");

        // Every column 1,000,000 long, the buffers still for 3 rows: Arrow Java would read past them.
        long[][] longer = copy(t.nodes);
        longer[0][0] = 1_000_000;
        longer[1][0] = 1_000_000;
        DeserializationException beyond = error(table(t.schema, 1_000_000, longer, t.buffers), "length beyond buffers");
        assertTrue(beyond.getMessage().contains("need"), beyond.getMessage());
        assertEquals(List.of("ArrowTable"), beyond.classIdPath());
    }

    private static byte[] int32s(int... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    @Test
    void offsetsOutsideTheirDataOrOutOfOrder() throws IOException {
        Parts t = new Parts();
        // buffers: a validity, a data, s validity, s offsets [0, 1, 3, 3], s data "xyy"
        for (int[] offsets : new int[][] {{0, 1, 3, 1_000_000}, {0, 2, 1, 3}, {-4, 1, 3, 3}, {0, 1, 3, Integer.MIN_VALUE}, {0, 1, 3}}) {
            List<byte[]> buffers = new ArrayList<>(t.buffers);
            buffers.set(3, int32s(offsets));
            DeserializationException e = error(table(t.schema, t.rows, t.nodes, buffers), java.util.Arrays.toString(offsets));
            assertTrue(e.getMessage().contains("field 's'"), e.getMessage());
        }
        List<byte[]> shortValidity = new ArrayList<>(t.buffers);
        shortValidity.set(0, new byte[0]);
        assertTrue(error(table(t.schema, t.rows, t.nodes, shortValidity), "no validity but nulls").getMessage().contains("validity"));
        List<byte[]> shortData = new ArrayList<>(t.buffers);
        shortData.set(1, new byte[23]);
        error(table(t.schema, t.rows, t.nodes, shortData), "int64 data one byte short");
    }

    @Test
    void schemaBinsThatAreNotSchemas() throws IOException {
        Parts t = new Parts();
        List<byte[]> bins = new ArrayList<>();
        // A message length of 2^31 - 1 (Arrow's reader allocated that much before), and others past the end.
        for (int length : new int[] {Integer.MAX_VALUE, -2, t.schema.length, 0}) {
            byte[] bin = t.schema.clone();
            ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN).putInt(4, length);
            bins.add(bin);
        }
        for (int cut = 0; cut < t.schema.length; cut += 3) {
            bins.add(java.util.Arrays.copyOf(t.schema, cut));
        }
        java.util.Random random = new java.util.Random(5);
        for (int i = 0; i < 300; i++) {
            byte[] bin = t.schema.clone();
            for (int k = 0; k < 1 + random.nextInt(3); k++) {
                bin[8 + random.nextInt(bin.length - 8)] = (byte) random.nextInt(256);
            }
            bins.add(bin);
        }
        int refused = 0;
        for (byte[] bin : bins) {
            Object outcome = Hostile.decode(registry, table(bin, t.rows, t.nodes, t.buffers), "schema bin");
            if (outcome instanceof DeserializationException) {
                refused++;
            } else {
                Hostile.release(outcome);
            }
        }
        assertTrue(refused > bins.size() / 4, refused + " of " + bins.size());
        DeserializationException huge = error(table(bins.get(0), t.rows, t.nodes, t.buffers), "message length 2^31 - 1");
        assertTrue(huge.getMessage().contains("its flatbuffer is said to be 2147483647 bytes"), huge.getMessage());
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

    @Test
    void ipcSchemasThatShareTablesNestDeeplyOrLackParts() {
        // The builder itself is checked: a plain null field reads.
        byte[] ok = ipcSchema(b -> org.apache.arrow.flatbuf.Schema.createFieldsVector(b, new int[] {nullField(b, "n", 0)}));
        Object plain = Hostile.decode(registry, table(ok, 0, new long[][] {{0, 0, 0}}, List.of()), "plain");
        assertInstanceOf(VectorSchemaRoot.class, plain);
        Hostile.release(plain);
        // Each struct lists the one below twice: 40 levels name 2^40 fields in a few kilobytes.
        byte[] shared = ipcSchema(b -> {
            int field = nullField(b, "leaf", 0);
            for (int i = 0; i < 40; i++) {
                field = structField(b, "s" + i, field, field);
            }
            return org.apache.arrow.flatbuf.Schema.createFieldsVector(b, new int[] {field});
        });
        long started = System.nanoTime();
        DeserializationException e = error(table(shared, 0, new long[0][], List.of()), "shared tables");
        assertTrue((System.nanoTime() - started) / 1_000_000 < 1000, "refused without expanding the tables");
        assertTrue(e.getMessage().contains("reached a second time"), e.getMessage());
        byte[] deep = ipcSchema(b -> {
            int field = nullField(b, "leaf", 0);
            for (int i = 0; i < 100; i++) {
                field = structField(b, "s" + i, field);
            }
            return org.apache.arrow.flatbuf.Schema.createFieldsVector(b, new int[] {field});
        });
        assertTrue(error(table(deep, 0, new long[0][], List.of()), "100 deep").getMessage().contains("64 deep"));
        byte[] noValue = ipcSchema(b -> {
            int kv = org.apache.arrow.flatbuf.KeyValue.createKeyValue(b, b.createString("k"), 0);
            int metadata = org.apache.arrow.flatbuf.Field.createCustomMetadataVector(b, new int[] {kv});
            return org.apache.arrow.flatbuf.Schema.createFieldsVector(b, new int[] {nullField(b, "n", metadata)});
        });
        assertTrue(error(table(noValue, 0, new long[][] {{0, 0, 0}}, List.of()), "metadata without a value")
                .getMessage().contains("a metadata entry has no value"));
        // A field without a name reads as named "", as Python (and Arrow C++) read it.
        byte[] noName = ipcSchema(b -> org.apache.arrow.flatbuf.Schema.createFieldsVector(b, new int[] {nullField(b, null, 0)}));
        Object nameless = Hostile.decode(registry, table(noName, 0, new long[][] {{0, 0, 0}}, List.of()), "no name");
        assertEquals("", assertInstanceOf(VectorSchemaRoot.class, nameless).getSchema().getFields().get(0).getName());
        Hostile.release(nameless);
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

    @Test
    void schemaDescriptionsOfTheWrongShape() {
        List<TestFrames.Packing> schemas = List.of(
                schema(field("a", type("Int", 7, true), true)),
                schema(field("a", type("Int", 64), true)),
                schema(field("a", type("Int", null, true), true)),
                schema(field("a", type("Nope"), true)),
                schema(field("a", type(), true)),
                schema(field("a", type("List"), true)),
                schema(field("a", type("List"), true, field("x", type("Null"), true), field("y", type("Null"), true))),
                schema(field("a", type("Map", false), true, field("entries", type("Null"), false))),
                schema(field("a", type("FixedSizeList", -1), true, field("item", type("Null"), true))),
                schema(field("a", type("FixedSizeBinary", -5), true)),
                schema(field("a", type("Decimal", 50, 2, 128), true)),
                schema(field("a", type("Decimal", 5, 2, 64), true)),
                schema(field("a", type("Time", "SECOND", 64), true)),
                schema(field("a", type("Utf8"), true, field("b", type("Null"), true))),
                p -> p.packArrayHeader(2).packNil().packNil(),
                p -> p.packArrayHeader(1).packArrayHeader(0),
                p -> p.packArrayHeader(2).packArrayHeader(1).packLong(3).packNil());
        for (TestFrames.Packing schema : schemas) {
            DeserializationException e = error(table(schema, 0, new long[][] {{0, 0, 2}}, List.of(new byte[0], new byte[0])), "schema");
            assertTrue(e.getMessage().contains("Arrow"), e.getMessage());
        }
        // Struct fields 100 deep: Arrow fields nest at most 64 deep.
        Desc deep = field("leaf", type("Null"), true);
        for (int i = 0; i < 100; i++) {
            deep = field("s" + i, type("Struct_"), true, deep);
        }
        assertTrue(error(table(schema(deep), 0, new long[0][], List.of()), "struct 100 deep").getMessage().contains("64"));
    }

    @Test
    void columnsWithNoPerRowBytesCannotMakeJavaAllocateMuch() {
        long rows = Integer.MAX_VALUE;
        // A null column of 2^31 - 1 rows holds no buffers and costs nothing.
        Object nulls = Hostile.decode(registry, table(schema(field("n", type("Null"), true)), rows, new long[][] {{rows, rows, 0}},
                List.of()), "null column");
        assertEquals(rows, assertInstanceOf(VectorSchemaRoot.class, nulls).getRowCount());
        Hostile.release(nulls);
        assertTrue(allocator.getPeakMemoryAllocation() < 1 << 20, "peak " + allocator.getPeakMemoryAllocation());
        // A struct of nulls of 100,000 rows (a 12.5 KB bitmap from a frame of a few hundred bytes) reads...
        long some = 100_000;
        Object modest = Hostile.decode(registry, table(schema(field("s", type("Struct_"), true, field("n", type("Null"), true))), some,
                new long[][] {{some, 0, 1}, {some, some, 0}}, List.of(new byte[0])), "struct of nulls, 100,000 rows");
        assertEquals(some, assertInstanceOf(VectorSchemaRoot.class, modest).getRowCount());
        Hostile.release(modest);
        // ... but 2^31 - 1 rows would make Arrow Java allocate a 256 MiB validity bitmap: refused.
        DeserializationException struct = error(table(schema(field("s", type("Struct_"), true, field("n", type("Null"), true))), rows,
                new long[][] {{rows, 0, 1}, {rows, rows, 0}}, List.of(new byte[0])), "struct of nulls");
        assertInstanceOf(LimitExceededException.class, struct);
        DeserializationException list = error(table(schema(field("f", type("FixedSizeList", 0), true, field("item", type("Null"), true))),
                rows, new long[][] {{rows, 0, 1}, {0, 0, 0}}, List.of(new byte[0])), "lists of no items");
        assertInstanceOf(LimitExceededException.class, list);
        // Arrow Java cannot hold a fixed-size binary of width 0 at all (pyarrow can): a clear refusal.
        DeserializationException binary = error(table(schema(field("b", type("FixedSizeBinary", 0), true)), rows,
                new long[][] {{rows, 0, 2}}, List.of(new byte[0], new byte[0])), "zero-width binary");
        assertTrue(binary.getMessage().contains("width 0"), binary.getMessage());
    }

    @Test
    void bitmapsBackedByTheFrameAreNotLimited() {
        // struct{b: bool} of 4,000,000 rows and no nulls: Arrow Java builds two bitmaps of 500 KB; the bool's is
        // backed by its own 500 KB of data in the frame, the struct's is within the allowance.
        int rows = 4_000_000;
        byte[] bits = new byte[rows / 8];
        Object value = Hostile.decode(registry, table(schema(field("s", type("Struct_"), true, field("b", type("Bool"), true))), rows,
                new long[][] {{rows, 0, 1}, {rows, 0, 2}}, List.of(new byte[0], new byte[0], bits)), "struct of bools");
        assertEquals(rows, assertInstanceOf(VectorSchemaRoot.class, value).getRowCount());
        Hostile.release(value);
    }

    @Test
    void childrenShorterThanTheirParentsNeed() {
        byte[] validity = new byte[0];
        // list<int32> of 2 rows with offsets [0, 2, 5] but a child of 3 values.
        TestFrames.Packing listSchema = schema(field("l", type("List"), true, field("item", type("Int", 32, true), true)));
        error(table(listSchema, 2, new long[][] {{2, 0, 2}, {3, 0, 2}},
                List.of(validity, int32s(0, 2, 5), validity, int32s(1, 2, 3))), "list child too short");
        Object fits = Hostile.decode(registry, table(listSchema, 2, new long[][] {{2, 0, 2}, {5, 0, 2}},
                List.of(validity, int32s(0, 2, 5), validity, int32s(1, 2, 3, 4, 5))), "list that fits");
        assertInstanceOf(VectorSchemaRoot.class, fits, "the same list, consistent");
        Hostile.release(fits);
        TestFrames.Packing fixed = schema(field("f", type("FixedSizeList", 4), true, field("item", type("Int", 32, true), true)));
        error(table(fixed, 2, new long[][] {{2, 0, 1}, {7, 0, 2}}, List.of(validity, validity, int32s(1, 2, 3, 4, 5, 6, 7))),
                "fixed-size list child too short");
        TestFrames.Packing struct = schema(field("s", type("Struct_"), true, field("i", type("Int", 32, true), true)));
        error(table(struct, 3, new long[][] {{3, 0, 1}, {2, 0, 2}}, List.of(validity, validity, int32s(1, 2))), "struct child too short");
    }

    @Test
    void aTableOfNoBatchesAndManyColumnsAllocatesLittle() {
        Desc[] fields = new Desc[2000];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = field("c" + i, type("Utf8"), true);
        }
        byte[] inBand = TestFrames.msgpack(p -> {
            p.packArrayHeader(2);
            schema(fields).pack(p);
            p.packArrayHeader(0);
        });
        byte[] frame = TestFrames.rawFrame("ArrowTable", inBand);
        Object value = Hostile.decode(registry, frame, "2,000 columns, no batches");
        assertEquals(0, assertInstanceOf(VectorSchemaRoot.class, value).getRowCount());
        Hostile.release(value);
        // Exactly sized vectors (a few bytes per column, rounded up by Arrow): on the order of the frame, where
        // Arrow's default sizing would take tens of megabytes.
        assertTrue(allocator.getPeakMemoryAllocation() <= 2L * frame.length,
                "peak " + allocator.getPeakMemoryAllocation() + " for a frame of " + frame.length);
    }

    private static byte[] int64s(long... values) {
        ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    @Test
    void batchesArrowJavaCannotAppendAreRefusedBeforeAllocating() {
        byte[] none = new byte[0];
        // Two batches of struct{n: null}: Arrow Java's appender grew this until the allocator's cap.
        byte[] structOfNull = TestFrames.msgpack(p -> {
            p.packArrayHeader(2);
            schema(field("s", type("Struct_"), true, field("n", type("Null"), true))).pack(p);
            p.packArrayHeader(2);
            for (int i = 0; i < 2; i++) {
                p.packArrayHeader(2).packLong(3).packArrayHeader(2);
                p.packArrayHeader(3).packLong(3).packLong(0).packLong(1).packArrayHeader(3).packLong(3).packLong(3).packLong(0);
            }
        });
        DeserializationException e = error(TestFrames.rawFrame("ArrowTable", structOfNull, none, none), "struct of null, 2 batches");
        assertTrue(e.getMessage().contains("a struct with a null-type child"), e.getMessage());
        // Two batches of large_list<int32>: the appender casts the vector to ListVector.
        byte[] largeList = TestFrames.msgpack(p -> {
            p.packArrayHeader(2);
            schema(field("l", type("LargeList"), true, field("item", type("Int", 32, true), true))).pack(p);
            p.packArrayHeader(2);
            for (int i = 0; i < 2; i++) {
                p.packArrayHeader(2).packLong(2).packArrayHeader(2);
                p.packArrayHeader(3).packLong(2).packLong(0).packLong(2).packArrayHeader(3).packLong(3).packLong(0).packLong(2);
            }
        });
        e = error(TestFrames.rawFrame("ArrowTable", largeList, none, int64s(0, 1, 3), none, int32s(1, 2, 3),
                none, int64s(0, 2, 3), none, int32s(4, 5, 6)), "large list, 2 batches");
        assertTrue(e.getMessage().contains("a LargeList"), e.getMessage());
        assertEquals(0, allocator.getPeakMemoryAllocation(), "refused before any batch was loaded");
    }

    @Test
    void severalBatchesStillConcatenate() {
        TestFrames.Packing s = schema(field("i", type("Int", 32, true), true), field("t", type("Utf8"), true));
        byte[] inBand = TestFrames.msgpack(p -> {
            p.packArrayHeader(2);
            s.pack(p);
            p.packArrayHeader(2);
            for (int b = 0; b < 2; b++) {
                p.packArrayHeader(2).packLong(2).packArrayHeader(2);
                p.packArrayHeader(3).packLong(2).packLong(0).packLong(2);
                p.packArrayHeader(3).packLong(2).packLong(0).packLong(3);
            }
        });
        byte[] none = new byte[0];
        byte[] frame = TestFrames.rawFrame("ArrowTable", inBand, none, int32s(1, 2), none, int32s(0, 1, 2), "ab".getBytes(),
                none, int32s(3, 4), none, int32s(0, 0, 1), "c".getBytes());
        VectorSchemaRoot root = assertInstanceOf(VectorSchemaRoot.class, Hostile.decode(registry, frame, "two batches"));
        try {
            assertEquals(4, root.getRowCount());
            assertEquals("i\tt\n1\ta\n2\tb\n3\t\n4\tc\n", root.contentToTSVString());
        } finally {
            root.close();
        }
    }
}
