package serreg.arrow;

import java.util.List;
import org.apache.arrow.flatbuf.Timestamp;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.DeserializationException;

/**
 * What the Arrow readers check of a schema before Arrow Java builds vectors from it
 * (docs/FORMAT.md section 4.3): every field holds one of the standard types of section 6.4 in the
 * shape Arrow defines, nested no deeper than Arrow C++ reads (kept in step with Python's
 * {@code serializers/arrow_types.py}). The schema message itself is walked first by
 * {@link ArrowIpcCheck}; each batch's nodes and buffers are checked by {@link ArrowNodeChecks}.
 * Arrow Java's own loading trusts these things; reading past a buffer, or resizing vectors to a
 * hostile length, is what the checks prevent.
 */
final class ArrowChecks {
    /** Fields nested deeper than this are refused (Arrow C++ reads IPC schemas up to the same depth). */
    static final int MAX_FIELD_NESTING = 64;

    private ArrowChecks() {
    }

    static final String EXTENSION_NAME = "ARROW:extension:name";
    private static final String EXTENSION_METADATA = "ARROW:extension:metadata";
    /** Arrow's canonical extension types, implemented by Arrow itself (no user code runs for them). */
    static final java.util.Set<String> CANONICAL_EXTENSIONS = java.util.Set.of(
            "arrow.uuid", "arrow.json", "arrow.bool8", "arrow.opaque", "arrow.fixed_shape_tensor");

    /** Checks that every field has a standard type of section 6.4, in the shape Arrow defines. */
    static void checkSchema(Schema schema, long at) {
        for (Field field : schema.getFields()) {
            checkField(field, 1, at);
        }
    }

    private static void checkField(Field field, int depth, long at) {
        if (depth > MAX_FIELD_NESTING) {
            throw new DeserializationException("Arrow fields are nested more than " + MAX_FIELD_NESTING + " deep", at);
        }
        if (field.getDictionary() != null && field.getDictionary().getIndexType() != null) {
            int bits = field.getDictionary().getIndexType().getBitWidth();
            if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
                throw bad(field, "is dictionary-encoded with an index of " + bits + " bits", at);
            }
        }
        ArrowType type = field.getType();
        int children = field.getChildren().size();
        switch (type.getTypeID()) {
            case Null, Bool, FloatingPoint, Date, Duration, Binary, Utf8, LargeBinary, LargeUtf8, Timestamp, Utf8View,
                    BinaryView -> requireChildren(field, 0, at);
            case Interval -> {
                if (((ArrowType.Interval) type).getUnit() != org.apache.arrow.vector.types.IntervalUnit.MONTH_DAY_NANO) {
                    // Python cannot hold the other units (pyarrow has no array class for them).
                    throw bad(field, "is an interval of unit " + ((ArrowType.Interval) type).getUnit()
                            + "; serreg carries MONTH_DAY_NANO intervals only", at);
                }
                requireChildren(field, 0, at);
            }
            case ListView, LargeListView -> requireChildren(field, 1, at);
            case Union -> {
                uniqueChildNames(field, "union", at);
                ArrowType.Union union = (ArrowType.Union) type;
                int[] ids = union.getTypeIds();
                if (children > 128 || ids != null && ids.length != children) {
                    throw bad(field, "is a union of " + children + " children with " + (ids == null ? 0 : ids.length)
                            + " type ids", at);
                }
                if (ids != null && java.util.Arrays.stream(ids).anyMatch(id -> id < 0 || id > 127)) {
                    throw bad(field, "is a union whose type ids are not all in 0..127", at);
                }
            }
            case RunEndEncoded -> {
                requireChildren(field, 2, at);
                ArrowType runEnds = field.getChildren().get(0).getType();
                if (!(runEnds instanceof ArrowType.Int i) || !i.getIsSigned() || i.getBitWidth() == 8) {
                    throw bad(field, "is run-end encoded with run ends of type " + runEnds + " (int16, int32 or int64)", at);
                }
            }
            case Int -> {
                int width = ((ArrowType.Int) type).getBitWidth();
                if (width != 8 && width != 16 && width != 32 && width != 64) {
                    throw bad(field, "is an integer of " + width + " bits (8, 16, 32 or 64)", at);
                }
                requireChildren(field, 0, at);
            }
            case Decimal -> {
                ArrowType.Decimal d = (ArrowType.Decimal) type;
                int maxPrecision = d.getBitWidth() == 128 ? 38 : d.getBitWidth() == 256 ? 76 : -1;
                if (maxPrecision < 0) {
                    // Arrow Java 18 makes a 128-bit DecimalVector for any other width and would misread the column.
                    throw bad(field, "is a " + d.getBitWidth() + "-bit decimal, which Arrow Java has no vector for"
                            + " (only 128 and 256 bits)", at);
                }
                if (d.getPrecision() < 1 || d.getPrecision() > maxPrecision) {
                    // (Any scale is valid Arrow, negative or above the precision.)
                    throw bad(field, "is a decimal of precision " + d.getPrecision() + ", outside 1.." + maxPrecision
                            + " for " + d.getBitWidth() + " bits", at);
                }
                requireChildren(field, 0, at);
            }
            case Time -> {
                ArrowType.Time t = (ArrowType.Time) type;
                boolean seconds = t.getUnit() == TimeUnit.SECOND || t.getUnit() == TimeUnit.MILLISECOND;
                if (t.getBitWidth() != (seconds ? 32 : 64)) {
                    throw bad(field, "is a time in " + t.getUnit() + " of " + t.getBitWidth() + " bits", at);
                }
                requireChildren(field, 0, at);
            }
            case FixedSizeBinary -> {
                int width = ((ArrowType.FixedSizeBinary) type).getByteWidth();
                if (width <= 0 || width > Integer.MAX_VALUE / 8) {
                    // Arrow Java counts a value's bits in an int: a wider value overflows it.
                    throw bad(field, "is a fixed-size binary of width " + width + "; Arrow Java holds widths of 1 to "
                            + Integer.MAX_VALUE / 8 + " bytes", at);
                }
                requireChildren(field, 0, at);
            }
            case List, LargeList -> requireChildren(field, 1, at);
            case FixedSizeList -> {
                if (((ArrowType.FixedSizeList) type).getListSize() < 0) {
                    throw bad(field, "has a negative list size", at);
                }
                requireChildren(field, 1, at);
            }
            case Map -> {
                requireChildren(field, 1, at);
                Field entries = field.getChildren().get(0);
                if (!(entries.getType() instanceof ArrowType.Struct) || entries.isNullable()
                        || entries.getChildren().size() != 2 || entries.getChildren().get(0).isNullable()) {
                    throw bad(field, "is a map whose child is not a non-nullable struct of a non-nullable key and a value", at);
                }
            }
            case Struct -> {
                // any number of children, each with a name of its own
                uniqueChildNames(field, "struct", at);
            }
            default -> throw bad(field, "has type " + type + ", which is not a standard Arrow type of"
                    + " docs/FORMAT.md section 6.4", at);
        }
        for (Field child : field.getChildren()) {
            checkField(child, depth + 1, at);
        }
        if (children > 0 && type.getTypeID() == ArrowType.ArrowTypeID.Null) {
            throw bad(field, "is of the null type but has children", at);
        }
    }

    /**
     * Arrow Java keeps a struct's or a union's children by name: of two sharing one it kept one (a
     * table of no batches lost a column and was written back with more fields than nodes; with rows,
     * Arrow Java's loader failed). Python refuses to write such columns cross-language.
     */
    private static void uniqueChildNames(Field field, String kind, long at) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Field child : field.getChildren()) {
            if (!names.add(child.getName())) {
                throw bad(field, "is a " + kind + " whose children share the name '" + child.getName() + "'; Arrow Java keeps "
                        + kind + " children by name", at);
            }
        }
    }

    private static void requireChildren(Field field, int count, long at) {
        if (field.getChildren().size() != count) {
            throw bad(field, "of type " + field.getType() + " has " + field.getChildren().size() + " children, not " + count, at);
        }
    }

    private static DeserializationException bad(Field field, String what, long at) {
        return new DeserializationException("Arrow field '" + field.getName() + "' " + what, at);
    }
}
