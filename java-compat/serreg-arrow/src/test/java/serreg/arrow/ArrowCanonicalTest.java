package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import serreg.CanonicalFormException;
import serreg.DeserializationException;
import serreg.InBandWriter;
import serreg.SerializationResult;
import serreg.SerializerRegistry;
import serreg.Serreg;
import serreg.TestFiles;
import serreg.arrow.ArrowRecordBatch;

/**
 * The canonical form of Arrow values in Java (docs/FORMAT.md, section 9.5): the values of the
 * Arrow vectors of tests/vectors/canonical, built in Java with several histories (filled through
 * the vector APIs, bytes left under null slots, validity padding bits set, NaN payloads and -0.0,
 * appended from batches and sliced, sent through an ordinary frame), give the vector's frame
 * byte for byte; values that differ give different digests.
 */
class ArrowCanonicalTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();
    private BufferAllocator allocator;

    @BeforeEach
    void openAllocator() {
        allocator = new RootAllocator(Long.MAX_VALUE);
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();  // fails the test if a vector was left open
    }

    // ------------------------------------------------------------------ helpers

    private static byte[] vectorFrame(String name) throws IOException {
        JsonNode root = new ObjectMapper().readTree(TestFiles.vectors("canonical").resolve("manifest.json").toFile());
        for (JsonNode e : root) {
            if (e.get("name").asText().equals(name)) {
                return TestFiles.read(TestFiles.vectors("canonical").resolve(e.get("file").asText()));
            }
        }
        throw new IllegalArgumentException("no canonical vector " + name);
    }

    private static byte[] canonicalFrame(Object value) {
        return TestFiles.bytes(Serreg.serializeCanonical(REGISTRY, value).toFrame());
    }

    /** Leaves the value in place and marks slot {@code index} null: bytes remain under a null slot. */
    private static void nullOver(FieldVector v, int index) {
        BitVectorHelper.unsetBit(v.getValidityBuffer(), index);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Field field(String name, ArrowType type, Field... children) {
        return new Field(name, FieldType.nullable(type), List.of(children));
    }

    /**
     * Rows {@code start..start+length-1} of {@code root} in new vectors (TransferPair
     * splitAndTransfer: bitmaps shifted, offsets rebased). VectorSchemaRoot.slice does the same
     * but fails on a NullVector in Arrow Java 18.
     */
    private VectorSchemaRoot slice(VectorSchemaRoot root, int start, int length) {
        List<FieldVector> vectors = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
            if (v instanceof NullVector) {
                vectors.add(new NullVector(v.getField(), length));
            } else {
                org.apache.arrow.vector.util.TransferPair pair = v.getTransferPair(allocator);
                pair.splitAndTransfer(start, length);
                vectors.add((FieldVector) pair.getTo());
            }
        }
        return new VectorSchemaRoot(root.getSchema(), vectors, length);
    }

    /** The rows of {@code build}'s table appended from three copies of it, and sliced back to the middle one. */
    private VectorSchemaRoot appendedAndSliced(Supplier<VectorSchemaRoot> build) {
        try (VectorSchemaRoot a = build.get(); VectorSchemaRoot b = build.get(); VectorSchemaRoot c = build.get();
             VectorSchemaRoot all = VectorSchemaRoot.create(a.getSchema(), allocator)) {
            all.allocateNew();
            all.setRowCount(0);
            VectorSchemaRootAppender.append(all, a, b, c);
            return slice(all, a.getRowCount(), a.getRowCount());
        }
    }

    /** {@code root} after an ordinary (IPC schema, not canonical) frame and back: no-null nodes lose their bitmap. */
    private static Object throughOrdinaryFrame(Object value) {
        ByteBuffer frame = TestFiles.direct(REGISTRY.serialize(value).toFrame());
        return REGISTRY.deserialize(frame);
    }

    private static void closeAll(Object... values) throws Exception {
        for (Object v : values) {
            ((AutoCloseable) v).close();
        }
    }

    // ------------------------------------------------------------------ arrow_table

    /**
     * The table of the {@code arrow_table} vector. {@code untidy}: values under null slots,
     * validity padding bits set, NaN payloads other than the source's and a zero of the other sign.
     */
    private VectorSchemaRoot flatTable(boolean untidy) {
        TinyIntVector i8 = new TinyIntVector("i8", allocator);
        UInt8Vector u64 = new UInt8Vector("u64", allocator);
        Float4Vector f32 = new Float4Vector("f32", allocator);
        Float8Vector f64 = new Float8Vector("f64", allocator);
        VarCharVector s = new VarCharVector("s", allocator);
        LargeVarBinaryVector bin = new LargeVarBinaryVector("bin", allocator);
        BitVector bool = new BitVector("bool", allocator);
        DateDayVector date = new DateDayVector("date", allocator);
        TimeStampNanoTZVector ts = new TimeStampNanoTZVector("ts", allocator, "Europe/Paris");
        DecimalVector dec = new DecimalVector("dec", allocator, 10, 2);
        NullVector nulls = new NullVector("null", 6);
        int[] i8s = {1, -2, 0, 4, 5, 6};
        long[] u64s = {0, -1L, 7, 0, 9, 10};
        float[] f32s = {untidy ? 0.0f : -0.0f, 1.5f, 0, untidy ? Float.intBitsToFloat(0xFFC00123) : Float.NaN, 3.0f, -4.0f};
        double[] f64s = {Double.longBitsToDouble(untidy ? 0x7FF0000000000001L : 0xFFF8000000000123L), untidy ? 0.0 : -0.0,
            2.0, 0, 1e300, Double.MIN_VALUE};
        String[] strs = {"a", null, "", "\u00fcn\u00efcode", "x".repeat(40), "z"};
        byte[][] bins = {{0}, {}, null, {(byte) 0xFF, (byte) 0xFE}, utf8("b"), utf8("c")};
        int[] bools = {1, 0, 0, 1, 0, 1};
        int[] dates = {0, 19000, 0, -1, 1, 2};
        long[] tss = {0, 1, 2, 0, 4, 5};
        String[] decs = {"1.23", null, "-0.01", "0.00", "99999999.99", "5.00"};
        List<FieldVector> vectors = List.of(i8, u64, f32, f64, s, bin, bool, date, ts, dec);
        int[] nullSlot = {2, 3, 2, 3, 1, 2, 2, 2, 3, 1};
        for (int i = 0; i < 6; i++) {
            int row = i;
            // Tidy: a null slot is never written. Untidy: it holds a value and is then marked null.
            java.util.function.IntPredicate fill = c -> untidy || nullSlot[c] != row;
            if (fill.test(0)) {
                i8.setSafe(i, i == 2 ? 99 : i8s[i]);
            }
            if (fill.test(1)) {
                u64.setSafe(i, i == 3 ? 12345 : u64s[i]);
            }
            if (fill.test(2)) {
                f32.setSafe(i, i == 2 ? Float.NaN : f32s[i]);
            }
            if (fill.test(3)) {
                f64.setSafe(i, i == 3 ? -7.5 : f64s[i]);
            }
            if (fill.test(4)) {
                s.setSafe(i, utf8(strs[i] != null ? strs[i] : "junk under a null"));
            }
            if (fill.test(5)) {
                bin.setSafe(i, bins[i] != null ? bins[i] : utf8("more junk"));
            }
            if (fill.test(6)) {
                bool.setSafe(i, i == 2 ? 1 : bools[i]);
            }
            if (fill.test(7)) {
                date.setSafe(i, i == 2 ? 5 : dates[i]);
            }
            if (fill.test(8)) {
                ts.setSafe(i, i == 3 ? 77 : tss[i]);
            }
            if (fill.test(9)) {
                dec.setSafe(i, new BigDecimal(decs[i] != null ? decs[i] : "3.14"));
            }
        }
        for (int c = 0; c < vectors.size(); c++) {
            FieldVector v = vectors.get(c);
            v.setValueCount(6);
            if (untidy) {
                nullOver(v, nullSlot[c]);
                BitVectorHelper.setBit(v.getValidityBuffer(), 6);  // padding bits past the last row
                BitVectorHelper.setBit(v.getValidityBuffer(), 7);
            } else {
                setNull(v, nullSlot[c]);
            }
        }
        List<FieldVector> columns = new ArrayList<>(vectors);
        columns.add(nulls);
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("z", "last");
        metadata.put("a", "first");
        List<Field> fields = columns.stream().map(FieldVector::getField).toList();
        return new VectorSchemaRoot(new Schema(fields, metadata), columns, 6);
    }

    private static void setNull(FieldVector v, int index) {
        if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector f) {
            f.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.BaseVariableWidthVector w) {
            w.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.BaseLargeVariableWidthVector w) {
            w.setNull(index);
        } else {
            throw new IllegalArgumentException(v.getClass().getName());
        }
    }

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

    // ------------------------------------------------------------------ arrow_nested_table

    /** One row of the nested table; null fields are null slots. */
    private record NestedRow(List<Integer> list, List<String> largeList, double[] fixed, StructRow struct,
                             List<Map.Entry<String, Long>> map, byte[] fsb) {
    }

    private record StructRow(Short x, List<Boolean> y) {
    }

    private static Map.Entry<String, Long> entry(String key, Long value) {
        return new java.util.AbstractMap.SimpleEntry<>(key, value);
    }

    /** The rows of the {@code arrow_nested_table} vector. */
    private static final List<NestedRow> NESTED_ROWS = List.of(
            new NestedRow(List.of(1, 2), List.of("a"), new double[] {1.0, -0.0}, new StructRow((short) 1, List.of(true)),
                    List.of(entry("k", 1L)), utf8("abc")),
            new NestedRow(null, Arrays.asList("b", null), null, null, null, null),
            new NestedRow(List.of(), null, new double[] {2.0, 3.0}, new StructRow(null, null), List.of(), utf8("xyz")),
            new NestedRow(List.of(3), List.of(), new double[] {4.0, 5.0}, new StructRow((short) 4, List.of()),
                    List.of(entry("a", null), entry("b", 2L)), new byte[3]));
    /** Rows around the vector's rows in a bigger table, to slice them out of it. */
    private static final NestedRow OTHER_ROW = new NestedRow(List.of(7, 7, 7), List.of("pre", "fix"), new double[] {8.0, 8.0},
            new StructRow((short) 5, List.of(false, true)), List.of(entry("p", 0L)), utf8("ppp"));
    /** What an untidy table leaves under a null slot. */
    private static final NestedRow JUNK = new NestedRow(List.of(99, 98), List.of("junk"), new double[] {9.0, 9.0},
            new StructRow((short) 77, List.of(true, false)), List.of(entry("zz", 5L)), utf8("qqq"));

    private static Schema nestedSchema() {
        // Arrow Java's own child names ($data$), not the canonical item / entries / key / value.
        Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
                new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
                field("value", new ArrowType.Int(64, true))));
        return new Schema(List.of(
                field("list", ArrowType.List.INSTANCE, field("$data$", new ArrowType.Int(32, true))),
                field("large_list", ArrowType.LargeList.INSTANCE, field("$data$", ArrowType.Utf8.INSTANCE)),
                field("fixed", new ArrowType.FixedSizeList(2),
                        field("$data$", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
                field("struct", ArrowType.Struct.INSTANCE, field("x", new ArrowType.Int(16, true)),
                        field("y", ArrowType.List.INSTANCE, field("$data$", ArrowType.Bool.INSTANCE))),
                new Field("map", FieldType.nullable(new ArrowType.Map(false)), List.of(entries)),
                field("fsb", new ArrowType.FixedSizeBinary(3))));
    }

    private VectorSchemaRoot nestedTable(boolean untidy) {
        return nestedTable(NESTED_ROWS, untidy);
    }

    /**
     * A table of {@code rows} filled through the vector APIs. {@code untidy}: a null slot first
     * gets the {@link #JUNK} value (child slots, bytes) and is then marked null, and -0.0 is
     * written as 0.0.
     */
    private VectorSchemaRoot nestedTable(List<NestedRow> rows, boolean untidy) {
        VectorSchemaRoot root = VectorSchemaRoot.create(nestedSchema(), allocator);
        root.allocateNew();
        ListVector list = (ListVector) root.getVector("list");
        LargeListVector large = (LargeListVector) root.getVector("large_list");
        FixedSizeListVector fixed = (FixedSizeListVector) root.getVector("fixed");
        StructVector struct = (StructVector) root.getVector("struct");
        MapVector map = (MapVector) root.getVector("map");
        FixedSizeBinaryVector fsb = (FixedSizeBinaryVector) root.getVector("fsb");
        for (int r = 0; r < rows.size(); r++) {
            NestedRow row = rows.get(r);
            setList(list, r, row.list() != null ? row.list() : untidy ? JUNK.list() : null);
            setLargeList(large, r, row.largeList() != null ? row.largeList() : untidy ? JUNK.largeList() : null);
            setFixed(fixed, r, row.fixed() != null ? row.fixed() : untidy ? JUNK.fixed() : null, untidy);
            setStruct(struct, r, row.struct() != null ? row.struct() : untidy ? JUNK.struct() : null);
            setMap(map, r, row.map() != null ? row.map() : untidy ? JUNK.map() : null);
            byte[] bytes = row.fsb() != null ? row.fsb() : untidy ? JUNK.fsb() : null;
            if (bytes == null) {
                fsb.setNull(r);
            } else {
                fsb.setSafe(r, bytes);
            }
        }
        root.setRowCount(rows.size());
        if (untidy) {
            for (int r = 0; r < rows.size(); r++) {
                NestedRow row = rows.get(r);
                List<Object> fields = Arrays.asList(row.list(), row.largeList(), row.fixed(), row.struct(), row.map(), row.fsb());
                for (int c = 0; c < fields.size(); c++) {
                    if (fields.get(c) == null) {
                        nullOver(root.getVector(c), r);
                    }
                }
            }
        }
        return root;
    }

    private static void setList(ListVector v, int r, List<Integer> items) {
        if (items == null) {
            v.setNull(r);
            return;
        }
        IntVector data = (IntVector) v.getDataVector();
        int at = v.startNewValue(r);
        for (int i = 0; i < items.size(); i++) {
            data.setSafe(at + i, items.get(i));
        }
        v.endValue(r, items.size());
    }

    private static void setLargeList(LargeListVector v, int r, List<String> items) {
        if (items == null) {
            v.setNull(r);
            return;
        }
        VarCharVector data = (VarCharVector) v.getDataVector();
        int at = (int) v.startNewValue(r);
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i) == null) {
                data.setNull(at + i);
            } else {
                data.setSafe(at + i, utf8(items.get(i)));
            }
        }
        v.endValue(r, items.size());
    }

    private static void setFixed(FixedSizeListVector v, int r, double[] items, boolean positiveZero) {
        Float8Vector data = (Float8Vector) v.getDataVector();
        if (items == null) {
            v.setNull(r);
            data.setNull(2 * r);
            data.setNull(2 * r + 1);
            return;
        }
        v.setNotNull(r);
        for (int i = 0; i < 2; i++) {
            data.setSafe(2 * r + i, positiveZero && items[i] == 0 ? 0.0 : items[i]);
        }
    }

    private static void setStruct(StructVector v, int r, StructRow value) {
        SmallIntVector x = (SmallIntVector) v.getChild("x");
        ListVector y = (ListVector) v.getChild("y");
        if (value == null) {
            v.setNull(r);
            x.setNull(r);
            y.setNull(r);
            return;
        }
        v.setIndexDefined(r);
        if (value.x() == null) {
            x.setNull(r);
        } else {
            x.setSafe(r, value.x());
        }
        if (value.y() == null) {
            y.setNull(r);
            return;
        }
        BitVector flags = (BitVector) y.getDataVector();
        int at = y.startNewValue(r);
        for (int i = 0; i < value.y().size(); i++) {
            flags.setSafe(at + i, value.y().get(i) ? 1 : 0);
        }
        y.endValue(r, value.y().size());
    }

    private static void setMap(MapVector v, int r, List<Map.Entry<String, Long>> entries) {
        if (entries == null) {
            v.setNull(r);
            return;
        }
        StructVector structs = (StructVector) v.getDataVector();
        VarCharVector keys = (VarCharVector) structs.getChild("key");
        BigIntVector values = (BigIntVector) structs.getChild("value");
        int at = v.startNewValue(r);
        for (int i = 0; i < entries.size(); i++) {
            structs.setIndexDefined(at + i);
            keys.setSafe(at + i, utf8(entries.get(i).getKey()));
            if (entries.get(i).getValue() == null) {
                values.setNull(at + i);
            } else {
                values.setSafe(at + i, entries.get(i).getValue());
            }
        }
        v.endValue(r, entries.size());
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

    // ------------------------------------------------------------------ arrow_record_batch

    private VectorSchemaRoot recordBatchColumns(long[] a, String[] b) {
        BigIntVector av = new BigIntVector("a", allocator);
        VarCharVector bv = new VarCharVector("b", allocator);
        for (int i = 0; i < a.length; i++) {
            if (a[i] == Long.MIN_VALUE) {
                av.setNull(i);
            } else {
                av.setSafe(i, a[i]);
            }
            if (b[i] == null) {
                bv.setNull(i);
            } else {
                bv.setSafe(i, utf8(b[i]));
            }
        }
        av.setValueCount(a.length);
        bv.setValueCount(b.length);
        return new VectorSchemaRoot(List.of(av, bv));
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

    // ------------------------------------------------------------------ different values, refusals, reading back

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

    @Test
    void metadataThatIsNotUtf8IsRefusedWhenRead() {
        // Python allows any bytes; Arrow Java holds Strings. Replacing the bytes would change the digest.
        for (byte[] key : List.of(new byte[] {(byte) 0xFF}, utf8("ok"))) {
            InBandWriter in = new InBandWriter(REGISTRY);
            in.writeArrayHeader(2).writeArrayHeader(2).writeArrayHeader(0).writeMapHeader(1).writeBinary(key).writeBinary(utf8("v"));
            in.writeArrayHeader(1).writeArrayHeader(2).writeLong(0).writeArrayHeader(0);
            ByteBuffer own = in.finish().inBand();
            ByteBuffer section = ByteBuffer.allocate(8 + own.remaining());
            REGISTRY.hashOf("ArrowTable").writeTo(section);
            section.put(own).flip();
            SerializationResult frame = new SerializationResult(section);
            if (key.length == 1) {
                DeserializationException error = assertThrows(DeserializationException.class, () -> REGISTRY.deserialize(frame));
                assertTrue(error.getMessage().contains("not UTF-8"), error.getMessage());
            } else {
                try (VectorSchemaRoot root = (VectorSchemaRoot) REGISTRY.deserialize(frame)) {
                    assertEquals(Map.of("ok", "v"), root.getSchema().getCustomMetadata());
                }
            }
        }
    }

    @Test
    void aDecimalArrowJavaCannotHoldIsRefusedNotMisread() {
        // Arrow Java 18 would load a 32- or 64-bit decimal column into a 128-bit DecimalVector.
        for (int bits : new int[] {32, 64}) {
            InBandWriter in = new InBandWriter(REGISTRY);
            in.writeArrayHeader(2).writeArrayHeader(2).writeArrayHeader(1)
                    .writeArrayHeader(5).writeString("d").writeArrayHeader(4).writeString("Decimal").writeLong(5).writeLong(2)
                    .writeLong(bits).writeBoolean(true).writeNil().writeArrayHeader(0)
                    .writeNil();
            in.writeArrayHeader(1).writeArrayHeader(2).writeLong(1).writeArrayHeader(1)
                    .writeArrayHeader(3).writeLong(1).writeLong(0).writeLong(2);
            ByteBuffer own = in.finish().inBand();
            ByteBuffer section = ByteBuffer.allocate(8 + own.remaining());
            REGISTRY.hashOf("ArrowTable").writeTo(section);
            section.put(own).flip();
            ByteBuffer value = ByteBuffer.allocateDirect(bits / 8).put(0, (byte) 125);
            SerializationResult frame = new SerializationResult(section, List.of(ByteBuffer.allocateDirect(0), value));
            DeserializationException error = assertThrows(DeserializationException.class, () -> REGISTRY.deserialize(frame));
            assertTrue(error.getMessage().contains(bits + "-bit decimal"), error.getMessage());
        }
        // Held in a 128-bit vector by hand, it is refused by the canonical writer too.
        Field field = new Field("d", FieldType.nullable(new ArrowType.Decimal(5, 2, 64)), List.of());
        try (DecimalVector v = new DecimalVector(field, allocator)) {
            v.setValueCount(1);
            CanonicalFormException error = assertThrows(CanonicalFormException.class,
                    () -> Serreg.digest(REGISTRY, new VectorSchemaRoot(List.of(v))));
            assertTrue(error.getMessage().contains("'d'"), error.getMessage());
        }
    }

    @Test
    void offsetsPastTheChildAndColumnsShorterThanTheTableAreRefused() throws Exception {
        try (VectorSchemaRoot root = nestedTable(false)) {
            ((ListVector) root.getVector("list")).getOffsetBuffer().setInt(4 * 4, 40);  // the last list ends at child slot 40
            CanonicalFormException error = assertThrows(CanonicalFormException.class, () -> Serreg.digest(REGISTRY, root));
            assertTrue(error.getMessage().contains("'list.item' holds 3 values, but 40 are needed"), error.getMessage());
        }
        try (VectorSchemaRoot root = recordBatchColumns(new long[] {1, 2}, new String[] {"a", "b"})) {
            VectorSchemaRoot longer = new VectorSchemaRoot(root.getSchema(), root.getFieldVectors(), 3);
            CanonicalFormException error = assertThrows(CanonicalFormException.class, () -> Serreg.digest(REGISTRY, longer));
            assertTrue(error.getMessage().contains("'a' holds 2 values, but 3 are needed"), error.getMessage());
        }
    }

    @Test
    void aTypeWithNoCanonicalFormIsRefusedNamingTheField() {
        try (IntervalDayVector span = new IntervalDayVector("span", allocator)) {
            span.setSafe(0, 1, 2);
            span.setValueCount(1);
            VectorSchemaRoot root = new VectorSchemaRoot(List.of(span));
            CanonicalFormException error = assertThrows(CanonicalFormException.class, () -> Serreg.digest(REGISTRY, root));
            assertTrue(error.getMessage().contains("'span'"), error.getMessage());
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
