package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static serreg.arrow.NestedCanonicalTable.NESTED_ROWS;
import static serreg.arrow.NestedCanonicalTable.OTHER_ROW;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.junit.jupiter.api.Test;
import serreg.SerializationResult;
import serreg.Serreg;
import serreg.TestFiles;
import serreg.arrow.ArrowRecordBatch;
import serreg.arrow.NestedCanonicalTable.NestedRow;

/**
 * The canonical form of Arrow values in Java (docs/FORMAT.md, section 9.5): the values of the
 * Arrow vectors of tests/vectors/canonical, built in Java with several histories (filled through
 * the vector APIs, bytes left under null slots, validity padding bits set, NaN payloads and -0.0,
 * appended from batches and sliced, sent through an ordinary frame), give the vector's frame
 * byte for byte. Digests of values that differ, refusals and reading back:
 * {@link ArrowCanonicalDigestTest}, {@link ArrowCanonicalRefusalTest}; the tables:
 * {@link CanonicalTables}.
 */
class ArrowCanonicalTest extends CanonicalTables {
    @Test
    void everyHistoryOfTheFlatTableGivesThePythonVectorFrame() throws Exception {
        byte[] expected = vectorFrame("arrow_table");
        VectorSchemaRoot tidy = flatTable(false);
        VectorSchemaRoot untidy = flatTable(true);
        VectorSchemaRoot sliced = appendedAndSliced(() -> flatTable(true));
        Object roundTripped = throughOrdinaryFrame(tidy);
        try {
            assertArrayEquals(expected, canonicalFrame(tidy), "built with the vector APIs");
            assertArrayEquals(expected, canonicalFrame(untidy), "bytes under nulls, padding bits, NaN payloads, +0.0");
            assertArrayEquals(expected, canonicalFrame(sliced), "appended from three batches and sliced");
            assertArrayEquals(expected, canonicalFrame(roundTripped), "read from an ordinary frame");
        } finally {
            closeAll(tidy, untidy, sliced, roundTripped);
        }
    }

    @Test
    void theUntidyTableReallyIsUntidy() throws Exception {
        // Guards the test above: without the canonical rules its histories would differ.
        try (VectorSchemaRoot tidy = flatTable(false); VectorSchemaRoot untidy = flatTable(true)) {
            assertFalse(Arrays.equals(TestFiles.bytes(REGISTRY.serialize(tidy).toFrame()),
                    TestFiles.bytes(REGISTRY.serialize(untidy).toFrame())));
            assertEquals(99, untidy.getVector("i8").getDataBuffer().getByte(2));
        }
    }

    @Test
    void everyHistoryOfTheNestedTableGivesThePythonVectorFrame() throws Exception {
        byte[] expected = vectorFrame("arrow_nested_table");
        VectorSchemaRoot tidy = nestedTable(false);
        VectorSchemaRoot untidy = nestedTable(true);
        // Arrow Java 18's VectorAppender cannot append a LargeListVector (it casts it to ListVector),
        // so the nested rows are sliced out of a bigger table instead: 3 rows before (offsets and
        // bitmaps do not start at 0 or on a byte), 2 after.
        List<NestedRow> bigger = new ArrayList<>(List.of(OTHER_ROW, NESTED_ROWS.get(1), OTHER_ROW));
        bigger.addAll(NESTED_ROWS);
        bigger.addAll(List.of(OTHER_ROW, OTHER_ROW));
        VectorSchemaRoot sliced;
        try (VectorSchemaRoot big = nestedTable(bigger, true)) {
            sliced = slice(big, 3, 4);
        }
        Object roundTripped = throughOrdinaryFrame(untidy);
        try {
            assertEquals("$data$", tidy.getVector("list").getField().getChildren().get(0).getName());
            assertArrayEquals(expected, canonicalFrame(tidy), "built with the vector APIs, Java's child names");
            assertArrayEquals(expected, canonicalFrame(untidy), "child slots and bytes under null slots, +0.0");
            assertArrayEquals(expected, canonicalFrame(sliced), "sliced out of a bigger table");
            assertArrayEquals(expected, canonicalFrame(roundTripped), "read from an ordinary frame");
        } finally {
            closeAll(tidy, untidy, sliced, roundTripped);
        }
    }

    @Test
    void theUntidyNestedTableReallyIsUntidy() {
        try (VectorSchemaRoot untidy = nestedTable(true)) {
            ListVector list = (ListVector) untidy.getVector("list");
            assertEquals(5, list.getDataVector().getValueCount(), "the null slot still covers two child slots");
            StructVector struct = (StructVector) untidy.getVector("struct");
            assertTrue(struct.isNull(1));
            assertFalse(struct.getChild("x").isNull(1), "a valid child slot under the null struct slot");
        }
    }

    @Test
    void aRecordBatchBuiltOrSlicedInJavaGivesThePythonVectorFrame() throws Exception {
        byte[] expected = vectorFrame("arrow_record_batch");
        long none = Long.MIN_VALUE;
        ArrowRecordBatch built = new ArrowRecordBatch(recordBatchColumns(new long[] {2, 3, none}, new String[] {"y", null, "w"}));
        VectorSchemaRoot bigger = recordBatchColumns(new long[] {1, 2, 3, none, 5}, new String[] {"x", "y", null, "w", "v"});
        ArrowRecordBatch sliced = new ArrowRecordBatch(slice(bigger, 1, 3));
        // The same rows in vectors of 5 values: only the root's 3 rows count.
        VectorSchemaRoot longer = recordBatchColumns(new long[] {2, 3, none, 8, 9}, new String[] {"y", null, "w", "p", "q"});
        ArrowRecordBatch shortened = new ArrowRecordBatch(new VectorSchemaRoot(longer.getSchema(), longer.getFieldVectors(), 3));
        try {
            assertEquals(5, longer.getVector("a").getValueCount());
            assertArrayEquals(expected, canonicalFrame(built));
            assertArrayEquals(expected, canonicalFrame(sliced));
            assertArrayEquals(expected, canonicalFrame(shortened));
            // The same rows as an ArrowTable: the same in-band and buffers under another ClassIDHash.
            SerializationResult asBatch = Serreg.serializeCanonical(REGISTRY, built);
            SerializationResult asTable = Serreg.serializeCanonical(REGISTRY, built.root());
            byte[] batchInBand = TestFiles.bytes(asBatch.inBand());
            byte[] tableInBand = TestFiles.bytes(asTable.inBand());
            assertFalse(Arrays.equals(batchInBand, 0, 8, tableInBand, 0, 8));
            assertArrayEquals(Arrays.copyOfRange(batchInBand, 8, batchInBand.length),
                    Arrays.copyOfRange(tableInBand, 8, tableInBand.length));
            assertEquals(asBatch.outOfBand(), asTable.outOfBand());
        } finally {
            closeAll(built, bigger, sliced, shortened);
        }
    }
}
