package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static serreg.arrow.HostileArrowFrames.copy;
import static serreg.arrow.HostileArrowFrames.field;
import static serreg.arrow.HostileArrowFrames.int32s;
import static serreg.arrow.HostileArrowFrames.ipcSchema;
import static serreg.arrow.HostileArrowFrames.nullField;
import static serreg.arrow.HostileArrowFrames.schema;
import static serreg.arrow.HostileArrowFrames.structField;
import static serreg.arrow.HostileArrowFrames.table;
import static serreg.arrow.HostileArrowFrames.type;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import serreg.DeserializationException;
import serreg.Hostile;
import serreg.TestFrames;
import serreg.arrow.HostileArrowFrames.Desc;
import serreg.arrow.HostileArrowFrames.Parts;

/**
 * Arrow frames whose schema, nodes or buffers lie: a DeserializationException, never a crash or a
 * large allocation. Lengths, counts and batches: {@link ArrowHostileLengthsTest}.
 */
class ArrowHostileTest extends CappedArrowRegistry {
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
}
