package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.CanonicalFormException;
import serreg.DeserializationException;
import serreg.InBandWriter;

/**
 * The Arrow schema description of docs/FORMAT.md section 9.5 (what canonical frames carry
 * instead of an IPC Schema message): {@code [fields, metadata]}, each field
 * {@code [name, type, nullable, metadata, children]}, types named as in Arrow's Schema.fbs.
 * {@link #write} gives the canonical description, {@link #read} accepts any valid one.
 */
final class SchemaDescription {
    /** Child names the description always uses; Arrow Java's own names ({@code $data$}) differ. */
    static final String LIST_ITEM_NAME = "item";
    static final String MAP_ENTRIES_NAME = "entries";
    static final String MAP_KEY_NAME = "key";
    static final String MAP_VALUE_NAME = "value";

    private SchemaDescription() {
    }

    /**
     * Writes the canonical description of {@code schema}: metadata sorted by the UTF-8 bytes of its
     * keys (nil when empty), list children named {@code item}, a map's child a non-nullable
     * {@code entries} struct without metadata whose children are {@code key} and {@code value}.
     *
     * @throws CanonicalFormException naming the field whose type has no description
     */
    static void write(Schema schema, InBandWriter out) {
        out.writeArrayHeader(2).writeArrayHeader(schema.getFields().size());
        for (Field field : schema.getFields()) {
            writeField(field, field.getName(), field.getName(), out);
        }
        writeMetadata(schema.getCustomMetadata(), out);
    }

    private static void writeField(Field field, String name, String path, InBandWriter out) {
        ArrowType type = field.getType();
        org.apache.arrow.vector.types.pojo.DictionaryEncoding encoding = field.getDictionary();
        out.writeArrayHeader(encoding == null ? 5 : 6).writeString(name);
        writeType(type, path, out);
        out.writeBoolean(field.isNullable());
        writeMetadata(field.getMetadata(), out);
        List<Field> children = field.getChildren();
        switch (type.getTypeID()) {
            case Struct, Union -> {
                out.writeArrayHeader(children.size());
                for (Field child : children) {
                    writeField(child, child.getName(), path + "." + child.getName(), out);
                }
            }
            case RunEndEncoded -> {
                if (children.size() != 2) {
                    throw new CanonicalFormException("Arrow field '" + path + "' is run-end encoded with "
                            + children.size() + " child fields, not run ends and values");
                }
                // As Python describes them: fixed names, run ends not nullable, values nullable, no metadata.
                out.writeArrayHeader(2);
                writeField(new Field("run_ends", new FieldType(false, children.get(0).getType(), null), List.of()),
                        "run_ends", path + ".run_ends", out);
                Field values = children.get(1);
                writeField(new Field("values", new FieldType(true, values.getType(), null), values.getChildren()),
                        "values", path + ".values", out);
            }
            case List, LargeList, FixedSizeList, ListView, LargeListView -> {
                Field item = onlyChild(field, path);
                out.writeArrayHeader(1);
                writeField(item, LIST_ITEM_NAME, path + "." + LIST_ITEM_NAME, out);
            }
            case Map -> {
                List<Field> entries = onlyChild(field, path).getChildren();
                if (entries.size() != 2) {
                    throw new CanonicalFormException("Arrow map field '" + path + "' has " + entries.size()
                            + " entry fields, not key and value");
                }
                String at = path + "." + MAP_ENTRIES_NAME;
                out.writeArrayHeader(1).writeArrayHeader(5).writeString(MAP_ENTRIES_NAME)
                        .writeArrayHeader(1).writeString("Struct_").writeBoolean(false).writeNil().writeArrayHeader(2);
                writeField(entries.get(0), MAP_KEY_NAME, at + "." + MAP_KEY_NAME, out);
                writeField(entries.get(1), MAP_VALUE_NAME, at + "." + MAP_VALUE_NAME, out);
            }
            default -> out.writeArrayHeader(0);
        }
        if (encoding != null) {  // [index bit width, index signed, ordered]
            ArrowType.Int index = encoding.getIndexType() != null ? encoding.getIndexType() : new ArrowType.Int(32, true);
            out.writeArrayHeader(3).writeLong(index.getBitWidth()).writeBoolean(index.getIsSigned())
                    .writeBoolean(encoding.isOrdered());
        }
    }

    private static Field onlyChild(Field field, String path) {
        if (field.getChildren().size() != 1) {
            throw new CanonicalFormException("Arrow field '" + path + "' of type " + field.getType() + " has "
                    + field.getChildren().size() + " child fields, not one");
        }
        return field.getChildren().get(0);
    }

    private static void writeMetadata(Map<String, String> metadata, InBandWriter out) {
        if (metadata == null || metadata.isEmpty()) {
            out.writeNil();
            return;
        }
        List<byte[][]> entries = new ArrayList<>();
        metadata.forEach((k, v) -> entries.add(new byte[][] {utf8(k), utf8(v)}));
        entries.sort((a, b) -> Arrays.compareUnsigned(a[0], b[0]));
        out.writeMapHeader(entries.size());
        for (byte[][] e : entries) {
            out.writeBinary(e[0]).writeBinary(e[1]);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void writeType(ArrowType type, String path, InBandWriter out) {
        switch (type.getTypeID()) {
            case Null -> out.writeArrayHeader(1).writeString("Null");
            case Bool -> out.writeArrayHeader(1).writeString("Bool");
            case Int -> {
                ArrowType.Int t = (ArrowType.Int) type;
                out.writeArrayHeader(3).writeString("Int").writeLong(t.getBitWidth()).writeBoolean(t.getIsSigned());
            }
            case FloatingPoint -> out.writeArrayHeader(2).writeString("FloatingPoint")
                    .writeString(((ArrowType.FloatingPoint) type).getPrecision().name());
            case Decimal -> {
                ArrowType.Decimal t = (ArrowType.Decimal) type;
                out.writeArrayHeader(4).writeString("Decimal").writeLong(t.getPrecision()).writeLong(t.getScale())
                        .writeLong(t.getBitWidth());
            }
            case Date -> out.writeArrayHeader(2).writeString("Date").writeString(((ArrowType.Date) type).getUnit().name());
            case Time -> {
                ArrowType.Time t = (ArrowType.Time) type;
                out.writeArrayHeader(3).writeString("Time").writeString(t.getUnit().name()).writeLong(t.getBitWidth());
            }
            case Timestamp -> {
                ArrowType.Timestamp t = (ArrowType.Timestamp) type;
                out.writeArrayHeader(3).writeString("Timestamp").writeString(t.getUnit().name());
                if (t.getTimezone() == null) {
                    out.writeNil();
                } else {
                    out.writeString(t.getTimezone());
                }
            }
            case Duration -> out.writeArrayHeader(2).writeString("Duration")
                    .writeString(((ArrowType.Duration) type).getUnit().name());
            case Binary -> out.writeArrayHeader(1).writeString("Binary");
            case Utf8 -> out.writeArrayHeader(1).writeString("Utf8");
            case LargeBinary -> out.writeArrayHeader(1).writeString("LargeBinary");
            case LargeUtf8 -> out.writeArrayHeader(1).writeString("LargeUtf8");
            case FixedSizeBinary -> out.writeArrayHeader(2).writeString("FixedSizeBinary")
                    .writeLong(((ArrowType.FixedSizeBinary) type).getByteWidth());
            case List -> out.writeArrayHeader(1).writeString("List");
            case LargeList -> out.writeArrayHeader(1).writeString("LargeList");
            case FixedSizeList -> out.writeArrayHeader(2).writeString("FixedSizeList")
                    .writeLong(((ArrowType.FixedSizeList) type).getListSize());
            case Struct -> out.writeArrayHeader(1).writeString("Struct_");
            case Map -> out.writeArrayHeader(2).writeString("Map").writeBoolean(((ArrowType.Map) type).getKeysSorted());
            case Interval -> out.writeArrayHeader(2).writeString("Interval")
                    .writeString(((ArrowType.Interval) type).getUnit().name());
            case Union -> {
                ArrowType.Union union = (ArrowType.Union) type;
                int[] ids = union.getTypeIds();
                out.writeArrayHeader(3).writeString("Union")
                        .writeString(union.getMode() == org.apache.arrow.vector.types.UnionMode.Sparse ? "Sparse" : "Dense");
                int count = ids == null ? 0 : ids.length;
                out.writeArrayHeader(count);
                for (int k = 0; k < count; k++) {
                    out.writeLong(ids[k]);
                }
            }
            case RunEndEncoded -> out.writeArrayHeader(1).writeString("RunEndEncoded");
            case Utf8View -> out.writeArrayHeader(1).writeString("Utf8View");
            case BinaryView -> out.writeArrayHeader(1).writeString("BinaryView");
            case ListView -> out.writeArrayHeader(1).writeString("ListView");
            case LargeListView -> out.writeArrayHeader(1).writeString("LargeListView");
            default -> throw new CanonicalFormException("Arrow field '" + path + "' has type " + type
                    + ", which has no canonical form (docs/FORMAT.md, sections 6.4 and 9.5)");
        }
    }

    static Schema read(Object description, long at) {
        try {
            List<?> schema = list(description, 2, "schema");
            List<Field> fields = new ArrayList<>();
            long[] ids = {0};  // dictionary ids, given in field order
            for (Object field : list(schema.get(0), -1, "fields")) {
                fields.add(field(field, ids));
            }
            return new Schema(fields, metadata(schema.get(1)));
        } catch (RuntimeException e) {
            // A description that is not the shape of section 9.5 (a missing item, a wrong type, a null) fails somewhere above.
            throw new DeserializationException("invalid Arrow schema description: " + e, at, e);
        }
    }

    private static List<?> list(Object value, int size, String what) {
        if (!(value instanceof List<?> list) || (size >= 0 && list.size() != size)) {
            throw new IllegalArgumentException(what + " must be an array" + (size >= 0 ? " of " + size : "") + ", not " + value);
        }
        return list;
    }

    private static Map<String, String> metadata(Object value) {
        if (value == null) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
            out.put(text((byte[]) e.getKey()), text((byte[]) e.getValue()));
        }
        return out;
    }

    /**
     * Arrow Java holds metadata as Strings: bytes that are not UTF-8 are refused, not replaced,
     * so that writing the value back cannot silently give other bytes (and another digest).
     */
    private static String text(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("Arrow metadata " + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 32))
                    + " is not UTF-8, which Arrow Java's String metadata cannot hold");
        }
    }

    private static Field field(Object description, long[] ids) {
        List<?> field = description instanceof List<?> l && l.size() == 6 ? l : list(description, 5, "a field");
        List<Field> children = new ArrayList<>();
        for (Object child : list(field.get(4), -1, "children")) {
            children.add(field(child, ids));
        }
        ArrowType type = type(list(field.get(1), -1, "a type"));
        org.apache.arrow.vector.types.pojo.DictionaryEncoding encoding = null;
        if (field.size() == 6) {  // dictionary-encoded: [index bit width, index signed, ordered]
            List<?> index = list(field.get(5), 3, "a dictionary encoding");
            int bits = integer(index.get(0));
            if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
                throw new IllegalArgumentException("a dictionary index of " + bits + " bits");
            }
            encoding = new org.apache.arrow.vector.types.pojo.DictionaryEncoding(ids[0]++, (Boolean) index.get(2),
                    new ArrowType.Int(bits, (Boolean) index.get(1)));
        }
        return new Field((String) field.get(0), new FieldType((Boolean) field.get(2), type, encoding, metadata(field.get(3))),
                children);
    }

    private static int integer(Object value) {
        return Math.toIntExact((Long) value);
    }

    private static ArrowType type(List<?> type) {
        String name = (String) type.get(0);
        return switch (name) {
            case "Null" -> ArrowType.Null.INSTANCE;
            case "Bool" -> ArrowType.Bool.INSTANCE;
            case "Int" -> new ArrowType.Int(integer(type.get(1)), (Boolean) type.get(2));
            case "FloatingPoint" -> new ArrowType.FloatingPoint(FloatingPointPrecision.valueOf((String) type.get(1)));
            case "Decimal" -> new ArrowType.Decimal(integer(type.get(1)), integer(type.get(2)), integer(type.get(3)));
            case "Date" -> new ArrowType.Date(DateUnit.valueOf((String) type.get(1)));
            case "Utf8View" -> ArrowType.Utf8View.INSTANCE;
            case "BinaryView" -> ArrowType.BinaryView.INSTANCE;
            case "ListView" -> ArrowType.ListView.INSTANCE;
            case "LargeListView" -> ArrowType.LargeListView.INSTANCE;
            case "RunEndEncoded" -> ArrowType.RunEndEncoded.INSTANCE;
            case "Union" -> {
                List<?> ids = (List<?>) type.get(2);
                int[] typeIds = new int[ids.size()];
                for (int k = 0; k < typeIds.length; k++) {
                    typeIds[k] = integer(ids.get(k));
                }
                yield new ArrowType.Union(org.apache.arrow.vector.types.UnionMode.valueOf((String) type.get(1)), typeIds);
            }
            case "Interval" -> new ArrowType.Interval(org.apache.arrow.vector.types.IntervalUnit.valueOf((String) type.get(1)));
            case "Time" -> new ArrowType.Time(TimeUnit.valueOf((String) type.get(1)), integer(type.get(2)));
            case "Timestamp" -> new ArrowType.Timestamp(TimeUnit.valueOf((String) type.get(1)), (String) type.get(2));
            case "Duration" -> new ArrowType.Duration(TimeUnit.valueOf((String) type.get(1)));
            case "Binary" -> ArrowType.Binary.INSTANCE;
            case "Utf8" -> ArrowType.Utf8.INSTANCE;
            case "LargeBinary" -> ArrowType.LargeBinary.INSTANCE;
            case "LargeUtf8" -> ArrowType.LargeUtf8.INSTANCE;
            case "FixedSizeBinary" -> new ArrowType.FixedSizeBinary(integer(type.get(1)));
            case "List" -> ArrowType.List.INSTANCE;
            case "LargeList" -> ArrowType.LargeList.INSTANCE;
            case "FixedSizeList" -> new ArrowType.FixedSizeList(integer(type.get(1)));
            case "Struct_" -> ArrowType.Struct.INSTANCE;
            case "Map" -> new ArrowType.Map((Boolean) type.get(1));
            default -> throw new IllegalArgumentException("unknown Arrow type " + name);
        };
    }
}
