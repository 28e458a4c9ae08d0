package serreg.arrow;

import static serreg.arrow.CanonicalTables.field;
import static serreg.arrow.CanonicalTables.nullOver;
import static serreg.arrow.CanonicalTables.utf8;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
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

/**
 * The table of the {@code arrow_nested_table} canonical vector built in Java (docs/FORMAT.md,
 * section 9.5): lists, large lists, fixed-size lists, structs, maps and fixed-size binaries with
 * Arrow Java's own child names, filled through the vector APIs, tidy or untidy.
 */
final class NestedCanonicalTable {
    private NestedCanonicalTable() {
    }

    /** One row of the nested table; null fields are null slots. */
    record NestedRow(List<Integer> list, List<String> largeList, double[] fixed, StructRow struct,
                     List<Map.Entry<String, Long>> map, byte[] fsb) {
    }

    record StructRow(Short x, List<Boolean> y) {
    }

    private static Map.Entry<String, Long> entry(String key, Long value) {
        return new java.util.AbstractMap.SimpleEntry<>(key, value);
    }

    /** The rows of the {@code arrow_nested_table} vector. */
    static final List<NestedRow> NESTED_ROWS = List.of(
            new NestedRow(List.of(1, 2), List.of("a"), new double[] {1.0, -0.0}, new StructRow((short) 1, List.of(true)),
                    List.of(entry("k", 1L)), utf8("abc")),
            new NestedRow(null, Arrays.asList("b", null), null, null, null, null),
            new NestedRow(List.of(), null, new double[] {2.0, 3.0}, new StructRow(null, null), List.of(), utf8("xyz")),
            new NestedRow(List.of(3), List.of(), new double[] {4.0, 5.0}, new StructRow((short) 4, List.of()),
                    List.of(entry("a", null), entry("b", 2L)), new byte[3]));
    /** Rows around the vector's rows in a bigger table, to slice them out of it. */
    static final NestedRow OTHER_ROW = new NestedRow(List.of(7, 7, 7), List.of("pre", "fix"), new double[] {8.0, 8.0},
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

    /**
     * A table of {@code rows} filled through the vector APIs. {@code untidy}: a null slot first
     * gets the {@link #JUNK} value (child slots, bytes) and is then marked null, and -0.0 is
     * written as 0.0.
     */
    static VectorSchemaRoot build(BufferAllocator allocator, List<NestedRow> rows, boolean untidy) {
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
}
