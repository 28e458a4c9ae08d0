package serreg.arrow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import serreg.SerializerRegistry;
import serreg.Serreg;
import serreg.TestFiles;

/**
 * The tables of the Arrow canonical vectors (tests/vectors/canonical) built in Java, for the
 * canonical-form tests (docs/FORMAT.md, section 9.5): {@code arrow_table} tidy or untidy (values
 * under null slots, validity padding bits set, other NaN payloads, a zero of the other sign),
 * {@code arrow_nested_table} ({@link NestedCanonicalTable}), {@code arrow_record_batch}'s
 * columns; the histories a table is given (appended from three copies and sliced back, rows
 * sliced out, sent through an ordinary frame); the vectors' frames. Each test gets its own
 * allocator, which must find every vector closed.
 */
abstract class CanonicalTables {
    static final SerializerRegistry REGISTRY = new SerializerRegistry();
    BufferAllocator allocator;

    @BeforeEach
    void openAllocator() {
        allocator = new RootAllocator(Long.MAX_VALUE);
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();  // fails the test if a vector was left open
    }

    // ------------------------------------------------------------------ helpers

    static byte[] vectorFrame(String name) throws IOException {
        JsonNode root = new ObjectMapper().readTree(TestFiles.vectors("canonical").resolve("manifest.json").toFile());
        for (JsonNode e : root) {
            if (e.get("name").asText().equals(name)) {
                return TestFiles.read(TestFiles.vectors("canonical").resolve(e.get("file").asText()));
            }
        }
        throw new IllegalArgumentException("no canonical vector " + name);
    }

    static byte[] canonicalFrame(Object value) {
        return TestFiles.bytes(Serreg.serializeCanonical(REGISTRY, value).toFrame());
    }

    /** Leaves the value in place and marks slot {@code index} null: bytes remain under a null slot. */
    static void nullOver(FieldVector v, int index) {
        BitVectorHelper.unsetBit(v.getValidityBuffer(), index);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Field field(String name, ArrowType type, Field... children) {
        return new Field(name, FieldType.nullable(type), List.of(children));
    }

    /**
     * Rows {@code start..start+length-1} of {@code root} in new vectors (TransferPair
     * splitAndTransfer: bitmaps shifted, offsets rebased). VectorSchemaRoot.slice does the same
     * but fails on a NullVector in Arrow Java 18.
     */
    VectorSchemaRoot slice(VectorSchemaRoot root, int start, int length) {
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
    VectorSchemaRoot appendedAndSliced(Supplier<VectorSchemaRoot> build) {
        try (VectorSchemaRoot a = build.get(); VectorSchemaRoot b = build.get(); VectorSchemaRoot c = build.get();
             VectorSchemaRoot all = VectorSchemaRoot.create(a.getSchema(), allocator)) {
            all.allocateNew();
            all.setRowCount(0);
            VectorSchemaRootAppender.append(all, a, b, c);
            return slice(all, a.getRowCount(), a.getRowCount());
        }
    }

    /** {@code root} after an ordinary (IPC schema, not canonical) frame and back: no-null nodes lose their bitmap. */
    static Object throughOrdinaryFrame(Object value) {
        ByteBuffer frame = TestFiles.direct(REGISTRY.serialize(value).toFrame());
        return REGISTRY.deserialize(frame);
    }

    static void closeAll(Object... values) throws Exception {
        for (Object v : values) {
            ((AutoCloseable) v).close();
        }
    }

    // ------------------------------------------------------------------ arrow_table

    /**
     * The table of the {@code arrow_table} vector. {@code untidy}: values under null slots,
     * validity padding bits set, NaN payloads other than the source's and a zero of the other sign.
     */
    VectorSchemaRoot flatTable(boolean untidy) {
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

    // ------------------------------------------------------------------ arrow_nested_table

    VectorSchemaRoot nestedTable(boolean untidy) {
        return NestedCanonicalTable.build(allocator, NestedCanonicalTable.NESTED_ROWS, untidy);
    }

    VectorSchemaRoot nestedTable(List<NestedCanonicalTable.NestedRow> rows, boolean untidy) {
        return NestedCanonicalTable.build(allocator, rows, untidy);
    }

    // ------------------------------------------------------------------ arrow_record_batch

    VectorSchemaRoot recordBatchColumns(long[] a, String[] b) {
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
}
