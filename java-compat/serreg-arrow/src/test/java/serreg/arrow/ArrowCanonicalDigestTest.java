package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import serreg.SerializationResult;
import serreg.Serreg;
import serreg.TestFiles;

/**
 * Digests and reading back of canonical Arrow values in Java (docs/FORMAT.md, section 9.5):
 * values that differ (a value, a null, a zero, a row, metadata, a null struct slot, a list's
 * offsets) give different digests; field metadata is taken from the schema; a canonical frame
 * reads back to the same rows; a column already canonical is hashed in place; a table nested in
 * a map is written canonically.
 */
class ArrowCanonicalDigestTest extends CanonicalTables {
    @Test
    void valuesThatDifferGiveDifferentDigests() throws Exception {
        List<byte[]> digests = new ArrayList<>();
        List<Consumer<VectorSchemaRoot>> changes = List.of(
                root -> { },
                root -> ((TinyIntVector) root.getVector("i8")).setSafe(0, 2),                // another value
                root -> ((TinyIntVector) root.getVector("i8")).setSafe(2, 0),                // 0 where a null was
                root -> ((Float8Vector) root.getVector("f64")).setSafe(1, Double.MIN_VALUE), // the smallest double, not 0
                root -> ((VarCharVector) root.getVector("s")).setNull(2),                    // null, not ""
                root -> ((BitVector) root.getVector("bool")).setSafe(1, 1));
        for (Consumer<VectorSchemaRoot> change : changes) {
            try (VectorSchemaRoot root = flatTable(false)) {
                change.accept(root);
                digests.add(Serreg.digest(REGISTRY, root));
            }
        }
        try (VectorSchemaRoot root = flatTable(false)) {
            Schema schema = root.getSchema();
            digests.add(Serreg.digest(REGISTRY, new VectorSchemaRoot(new Schema(schema.getFields()), root.getFieldVectors(), 6)));
            digests.add(Serreg.digest(REGISTRY, new VectorSchemaRoot(
                    new Schema(schema.getFields(), Map.of("a", "first", "z", "LAST")), root.getFieldVectors(), 6)));
            try (VectorSchemaRoot fewer = slice(root, 0, 5)) {
                digests.add(Serreg.digest(REGISTRY, fewer));
            }
        }
        // Nested: a null struct slot is not a struct slot whose fields are null; moving a list
        // element to the next slot keeps the child but changes the offsets.
        try (VectorSchemaRoot root = nestedTable(false)) {
            digests.add(Serreg.digest(REGISTRY, root));
            ((StructVector) root.getVector("struct")).setIndexDefined(1);
            digests.add(Serreg.digest(REGISTRY, root));
        }
        try (VectorSchemaRoot root = nestedTable(false)) {
            ListVector list = (ListVector) root.getVector("list");
            list.getOffsetBuffer().setInt(4, 1);  // [[1, 2], None, [], [3]] becomes [[1], [2], [], [3]]
            list.setNotNull(1);
            digests.add(Serreg.digest(REGISTRY, root));
        }
        for (int i = 0; i < digests.size(); i++) {
            for (int j = i + 1; j < digests.size(); j++) {
                assertFalse(Arrays.equals(digests.get(i), digests.get(j)), "values " + i + " and " + j + " share a digest");
            }
        }
    }

    @Test
    void fieldMetadataIsTakenFromTheSchemaEvenWhereAVectorDropsIt() {
        // VectorSchemaRoot.create makes a NullVector whose own field has lost the metadata.
        Field plain = new Field("n", FieldType.nullable(ArrowType.Null.INSTANCE), List.of());
        Field tagged = new Field("n", new FieldType(true, ArrowType.Null.INSTANCE, null, Map.of("k", "v")), List.of());
        try (VectorSchemaRoot a = VectorSchemaRoot.create(new Schema(List.of(plain)), allocator);
             VectorSchemaRoot b = VectorSchemaRoot.create(new Schema(List.of(tagged)), allocator)) {
            assertTrue(b.getVector(0).getField().getMetadata().isEmpty());
            assertFalse(Arrays.equals(Serreg.digest(REGISTRY, a), Serreg.digest(REGISTRY, b)));
        }
    }

    private static List<String> rowsOf(VectorSchemaRoot root) {
        List<String> out = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
            for (int i = 0; i < root.getRowCount(); i++) {
                Object o = v.getObject(i);
                out.add(v.getName() + "[" + i + "] = " + (o instanceof byte[] b ? Arrays.toString(b) : String.valueOf(o)));
            }
        }
        return out;
    }

    @Test
    void aCanonicalFrameReadsBackToTheSameRows() throws Exception {
        try (VectorSchemaRoot untidy = nestedTable(true);
             VectorSchemaRoot back = (VectorSchemaRoot) REGISTRY.deserialize(
                     TestFiles.direct(Serreg.serializeCanonical(REGISTRY, untidy).toFrame()))) {
            // untidy has +0.0 where the source had -0.0, as the canonical form does.
            assertEquals(rowsOf(untidy), rowsOf(back));
        }
    }

    @Test
    void aColumnThatIsAlreadyCanonicalIsHashedInPlace() {
        try (VectorSchemaRoot root = recordBatchColumns(new long[] {5, 6, 7}, new String[] {"a", "bc", "d"})) {
            SerializationResult result = Serreg.serializeCanonical(REGISTRY, root);
            // Buffers: a validity (empty), a data; b validity (empty), offsets, data.
            ByteBuffer ints = result.outOfBand().get(1);
            ByteBuffer chars = result.outOfBand().get(4);
            assertEquals(root.getVector("a").getDataBufferAddress(), MemoryUtil.getByteBufferAddress(ints));
            assertEquals(root.getVector("b").getDataBufferAddress(), MemoryUtil.getByteBufferAddress(chars));
            assertEquals(24, ints.remaining());
            assertEquals(4, chars.remaining());
        }
    }

    @Test
    void nestedInAMapTheTableIsWrittenCanonically() throws Exception {
        try (VectorSchemaRoot tidy = flatTable(false); VectorSchemaRoot untidy = flatTable(true)) {
            Map<Object, Object> a = new HashMap<>();
            a.put("t", tidy);
            a.put("n", 1L);
            Map<Object, Object> b = new LinkedHashMap<>();
            b.put("n", 1L);
            b.put("t", untidy);
            assertArrayEquals(Serreg.digest(REGISTRY, a), Serreg.digest(REGISTRY, b));
        }
    }
}
