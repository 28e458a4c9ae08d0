package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static serreg.arrow.HostileArrowFrames.field;
import static serreg.arrow.HostileArrowFrames.int32s;
import static serreg.arrow.HostileArrowFrames.int64s;
import static serreg.arrow.HostileArrowFrames.schema;
import static serreg.arrow.HostileArrowFrames.table;
import static serreg.arrow.HostileArrowFrames.type;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import serreg.DeserializationException;
import serreg.Hostile;
import serreg.LimitExceededException;
import serreg.TestFrames;
import serreg.arrow.HostileArrowFrames.Desc;

/**
 * Arrow frames whose lengths, counts or batches would make Java allocate much or read past a
 * child: refused before allocating (columns with no bytes per row, children shorter than their
 * parents need, batches Arrow Java cannot append), while what is consistent still reads (bitmaps
 * backed by the frame, many columns and no batches, several batches).
 */
class ArrowHostileLengthsTest extends CappedArrowRegistry {
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
