package serreg.arrow;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
import serreg.DeserializationException;

/**
 * Reads the Arrow schema description of docs/FORMAT.md section 9.5 (what canonical frames carry
 * instead of an IPC Schema message): {@code [fields, metadata]}, each field
 * {@code [name, type, nullable, metadata, children]}, types named as in Arrow's Schema.fbs.
 */
final class SchemaDescription {
    private SchemaDescription() {
    }

    static Schema read(Object description, long at) {
        try {
            List<?> schema = list(description, 2, "schema");
            List<Field> fields = new ArrayList<>();
            for (Object field : list(schema.get(0), -1, "fields")) {
                fields.add(field(field));
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
            out.put(new String((byte[]) e.getKey(), StandardCharsets.UTF_8), new String((byte[]) e.getValue(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static Field field(Object description) {
        List<?> field = list(description, 5, "a field");
        List<Field> children = new ArrayList<>();
        for (Object child : list(field.get(4), -1, "children")) {
            children.add(field(child));
        }
        ArrowType type = type(list(field.get(1), -1, "a type"));
        return new Field((String) field.get(0), new FieldType((Boolean) field.get(2), type, null, metadata(field.get(3))), children);
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
