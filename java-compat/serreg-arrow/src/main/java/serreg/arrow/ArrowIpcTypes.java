package serreg.arrow;

import java.util.Map;

/**
 * The Arrow types an IPC Schema message may hold, and the checks of their type tables: the Java
 * twin of Python's {@code serializers/arrow_ipc_types.py}, the same checks in the same order with
 * the same words. {@link ArrowIpcCheck} walks the flatbuffer; for each field it asks
 * {@link #refusedType} whether the type tag is one serreg carries (docs/FORMAT.md, section 6.4) and
 * {@link #checkType} whether its type table holds parameters that go together, and
 * {@link #checkDictionary} does the same for a field's DictionaryEncoding. Every slot Arrow Java
 * reads of these tables is read here first, so that each is checked inside its table. The numbers
 * are the type union tags and table slots of Arrow's {@code Schema.fbs}.
 */
final class ArrowIpcTypes {
    private ArrowIpcTypes() {
    }

    static final int INT = 2;
    static final int FLOAT = 3;
    static final int DECIMAL = 7;
    static final int DATE = 8;
    static final int TIME = 9;
    static final int TIMESTAMP = 10;
    static final int INTERVAL = 11;
    static final int STRUCT = 13;
    static final int UNION = 14;
    static final int FIXED_SIZE_BINARY = 15;
    static final int FIXED_SIZE_LIST = 16;
    static final int MAP = 17;
    static final int DURATION = 18;

    /** Tag -> name in Schema.fbs (index = tag; null: not a type serreg knows). */
    static final String[] NAMES = {null, "Null", "Int", "FloatingPoint", "Binary", "Utf8", "Bool", "Decimal", "Date",
        "Time", "Timestamp", "Interval", "List", "Struct_", "Union", "FixedSizeBinary", "FixedSizeList", "Map", "Duration",
        "LargeBinary", "LargeUtf8", "LargeList", "RunEndEncoded", "BinaryView", "Utf8View", "ListView", "LargeListView"};
    /** Tag -> the child fields it needs (-1: any number). */
    static final int[] CHILDREN = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, -1, -1, 0, 1, 1, 0, 0, 0, 1, 2, 0, 0, 1, 1};

    private static final String[] INTERVAL_UNITS = {"YEAR_MONTH", "DAY_TIME", "MONTH_DAY_NANO"};
    /** A union has at most 128 children (type codes 0..127). */
    private static final int MAX_UNION_CHILDREN = 128;
    private static final Map<Integer, Integer> DECIMAL_PRECISION = Map.of(32, 9, 64, 18, 128, 38, 256, 76);

    /** Why a type tag is refused (null: it is one serreg carries). */
    static String refusedType(int tag) {
        if (tag > 0 && tag < NAMES.length) {
            return null;
        }
        return "type tag " + tag + ", which is not an Arrow type serreg knows";
    }

    private static boolean in(int value, int... allowed) {
        for (int a : allowed) {
            if (value == a) {
                return true;
            }
        }
        return false;
    }

    /** Checks the type table of a field of type {@code tag} with {@code children} child fields. */
    static void checkType(IpcFlatbuffer buffer, int tag, IpcFlatbuffer.Table table, ArrowIpcCheck.Counts counts, int children) {
        switch (tag) {
            case INT -> {
                if (!in(table.i32(0, 0), 8, 16, 32, 64)) {
                    throw buffer.fail("an Int type must be 8, 16, 32 or 64 bits wide", table.position);
                }
                table.u8(1, 0);
            }
            case FLOAT -> {
                if (!in(table.i16(0, 0), 0, 1, 2)) {
                    throw buffer.fail("a FloatingPoint precision must be HALF, SINGLE or DOUBLE", table.position);
                }
            }
            case DECIMAL -> {
                int precision = table.i32(0, 0);
                int bits = table.i32(2, 128);
                table.i32(1, 0);
                Integer limit = DECIMAL_PRECISION.get(bits);
                if (limit == null || precision < 1 || precision > limit) {
                    throw buffer.fail("a Decimal type of " + bits + " bits has precision " + precision + " (1.."
                            + (limit == null ? "None" : limit) + " for 32, 64, 128 or 256 bits)", table.position);
                }
                if ((bits == 32 || bits == 64) && counts.javaRefusal == null) {
                    // Java only (Python reads them): Arrow Java 18 throws on them while converting the schema.
                    counts.javaRefusal = buffer.fail("a Decimal type of " + bits + " bits, which Arrow Java has no vector"
                            + " for (only 128 and 256 bits; docs/FORMAT.md, section 6.4)", table.position);
                }
            }
            case DATE -> {
                if (!in(table.i16(0, 1), 0, 1)) {
                    throw buffer.fail("a Date unit must be DAY or MILLISECOND", table.position);
                }
            }
            case TIME -> {
                int unit = table.i16(0, 1);
                int bits = table.i32(1, 32);
                if (!(bits == 32 && (unit == 0 || unit == 1) || bits == 64 && (unit == 2 || unit == 3))) {
                    throw buffer.fail("a Time type has unit " + unit + " and bit width " + bits + ", which do not go together",
                            table.position);
                }
            }
            case TIMESTAMP -> {
                if (!in(table.i16(0, 0), 0, 1, 2, 3)) {
                    throw buffer.fail("a Timestamp unit must be SECOND, MILLISECOND, MICROSECOND or NANOSECOND", table.position);
                }
                byte[] zone = table.string(1, "time zone");
                if (zone != null) {
                    counts.stringBytes += zone.length;
                    if (PythonText.utf8Problem(zone) != null) {
                        throw buffer.fail("a Timestamp time zone is not UTF-8", table.position);
                    }
                }
            }
            case DURATION -> {
                if (!in(table.i16(0, 1), 0, 1, 2, 3)) {
                    throw buffer.fail("a Duration unit must be SECOND, MILLISECOND, MICROSECOND or NANOSECOND", table.position);
                }
            }
            case INTERVAL -> {
                int unit = table.i16(0, 0);
                if (!in(unit, 0, 1, 2)) {
                    throw buffer.fail("an Interval unit must be YEAR_MONTH, DAY_TIME or MONTH_DAY_NANO, not " + unit,
                            table.position);
                }
                if (unit != 2) {
                    throw buffer.fail("the field is an Interval(" + INTERVAL_UNITS[unit] + ") column, which pyarrow cannot"
                            + " hold as an array in Python (only month_day_nano intervals); serreg does not carry it",
                            table.position);
                }
            }
            case FIXED_SIZE_BINARY, FIXED_SIZE_LIST -> {
                if (table.i32(0, 0) < 0) {
                    throw buffer.fail("a " + NAMES[tag] + " size is negative", table.position);
                }
            }
            case MAP -> table.u8(0, 0);
            case UNION -> checkUnion(buffer, table, children);
            default -> {
                // no parameters: the table itself was checked
            }
        }
    }

    private static void checkUnion(IpcFlatbuffer buffer, IpcFlatbuffer.Table table, int children) {
        if (!in(table.i16(0, 0), 0, 1)) {
            throw buffer.fail("a Union mode must be Sparse or Dense", table.position);
        }
        if (children > MAX_UNION_CHILDREN) {
            throw buffer.fail("a Union has " + children + " children, more than " + MAX_UNION_CHILDREN, table.position);
        }
        // Arrow Java makes an int[] of the declared count: the vector is checked against the message first.
        int[] codes = table.int32Vector(1, "union type ids");
        if (codes == null) {
            return;
        }
        boolean bad = codes.length != children || java.util.Arrays.stream(codes).distinct().count() != codes.length
                || java.util.Arrays.stream(codes).anyMatch(c -> c < 0 || c >= 128);
        if (bad) {
            StringBuilder shown = new StringBuilder("[");
            for (int i = 0; i < Math.min(8, codes.length); i++) {
                shown.append(i == 0 ? "" : ", ").append(codes[i]);
            }
            throw buffer.fail("a Union's type ids " + shown + "] must be " + children + " distinct codes in 0..127",
                    table.position);
        }
    }

    /** Checks a field's DictionaryEncoding table: its index type is an integer of 8 to 64 bits. */
    static void checkDictionary(IpcFlatbuffer buffer, IpcFlatbuffer.Table encoding) {
        encoding.i64(0, 0); // id: any; serreg sends each dictionary with its batch
        IpcFlatbuffer.Table index = encoding.table(1, "Int");
        if (index == null) { // Arrow C++ refuses it; Arrow Java would take a 32-bit index
            throw buffer.fail("a dictionary has no index type", encoding.position);
        }
        if (!in(index.i32(0, 0), 8, 16, 32, 64)) {
            throw buffer.fail("a dictionary's index type must be an integer of 8, 16, 32 or 64 bits", encoding.position);
        }
        index.u8(1, 0); // is_signed
        encoding.u8(2, 0); // isOrdered
        if (encoding.i16(3, 0) != 0) {
            throw buffer.fail("a dictionary's kind must be DenseArray", encoding.position);
        }
    }
}
