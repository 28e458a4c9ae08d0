package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import serreg.DeserializationException;
import serreg.InBandReader;

/**
 * What the Arrow readers check of each batch before Arrow Java loads it (docs/FORMAT.md section
 * 4.3), the twin of the checks of Python's {@code serializers/arrow_nodes.py} and
 * {@code arrow_validate.py}: every node's buffers are as long as its length and type need,
 * offsets are in order and within their data or child, unions pick children they have, views lie
 * inside their data, children are long enough for their parents, and the value rules legacy
 * writers broke hold. Arrow Java's own loading trusts these things.
 */
final class ArrowNodeChecks {
    private ArrowNodeChecks() {
    }

    /** One field node of a batch as read from the frame, before Arrow Java sees it. */
    record Node(Field field, long length, long nullCount, List<ByteBuffer> buffers, long at) {
    }

    /**
     * Checks a batch's nodes (depth-first pre-order, as in the schema) against their buffers:
     * top-level nodes have {@code rows} slots; validity bitmaps, offsets and data cover every
     * slot; offsets start at 0 or more, never decrease and stay within their data or child;
     * children are long enough for their parent. Accounts, through {@code in}, for the validity
     * bitmaps Arrow Java allocates itself (for a node with no nulls, or only nulls) where the
     * node's own buffers do not hold as many bytes.
     */
    static void checkBatch(long rows, List<Node> nodes, List<Field> topLevel, InBandReader in) {
        int next = 0;
        for (Field field : topLevel) {
            Node node = nodes.get(next);
            if (node.length() != rows) {
                throw new DeserializationException("Arrow column '" + field.getName() + "' has " + node.length()
                        + " slots but the batch has " + rows + " rows", node.at());
            }
            next = checkNode(nodes, next, rows, in);
        }
    }

    /** Checks node {@code i} and its children; returns the index after its subtree. */
    private static int checkNode(List<Node> nodes, int i, long minLength, InBandReader in) {
        Node node = nodes.get(i);
        Field field = node.field();
        long n = node.length();
        if (n < minLength) {
            throw nodeError(node, "has " + n + " slots but its parent needs " + minLength);
        }
        List<ByteBuffer> buffers = node.buffers();
        ArrowType type = field.getType();
        List<BufferLayout> layouts = TypeLayout.getTypeLayout(type).getBufferLayouts();
        if (!layouts.isEmpty() && layouts.get(0).getType() == BufferLayout.BufferType.VALIDITY) {
            long bitmap = (n + 7) / 8;
            if (node.nullCount() > 0 && node.nullCount() < n) {
                requireSize(node, 0, "validity bitmap", bitmap);
            } else if (buffers.stream().mapToLong(ByteBuffer::remaining).sum() < bitmap) {
                // Arrow Java makes its own bitmap for a node with no nulls (or only nulls). A node whose
                // own buffers hold at least that many bytes costs no more than the frame; one without
                // (a struct or fixed-size list, whose slots are in its children) is accounted for.
                in.reserveAllocation(bitmap, "the validity bitmap of Arrow field '" + field.getName() + "' (" + n + " slots)", node.at());
            }
        }
        long childMin = 0;
        long[] childLengths = null;  // a union's: checked against its type ids and offsets
        switch (type.getTypeID()) {
            case Null, RunEndEncoded -> {
            }
            case Union -> {
                requireSize(node, 0, "type ids", n);
                if (((ArrowType.Union) type).getMode() == org.apache.arrow.vector.types.UnionMode.Sparse) {
                    childMin = n;
                } else {
                    requireSize(node, 1, "offsets", n * 4);
                }
                childLengths = new long[field.getChildren().size()];
            }
            case Utf8View, BinaryView -> checkViews(node);
            case ListView -> childMin = listViews(node, 4);
            case LargeListView -> childMin = listViews(node, 8);
            case Struct -> childMin = n;
            case List, Map -> childMin = offsets(node, 1, 4);
            case LargeList -> childMin = offsets(node, 1, 8);
            case FixedSizeList -> childMin = n * ((ArrowType.FixedSizeList) type).getListSize();
            case Binary, Utf8 -> requireSize(node, 2, "data", offsets(node, 1, 4));
            case LargeBinary, LargeUtf8 -> requireSize(node, 2, "data", offsets(node, 1, 8));
            case Bool -> requireSize(node, 1, "data", (n + 7) / 8);
            case FixedSizeBinary -> requireSize(node, 1, "data", n * ((ArrowType.FixedSizeBinary) type).getByteWidth());
            default -> {
                requireSize(node, 1, "data", n * (layouts.get(1).getTypeBitWidth() / 8));
                String problem = legacyValueProblem(type, n, buffers.get(0), buffers.get(1));
                if (problem != null) {
                    throw nodeError(node, "breaks Arrow's full validation: " + problem);
                }
            }
        }
        int next = i + 1;
        for (int c = 0; c < field.getChildren().size(); c++) {
            if (childLengths != null) {
                childLengths[c] = nodes.get(next).length();
            }
            next = checkNode(nodes, next, childMin, in);
        }
        if (childLengths != null) {
            checkUnion(node, childLengths);
        }
        return next;
    }

    /**
     * The value rules Arrow's full validation adds beyond the layout, which legacy writers (Arrow
     * 0.14 to 1.0) broke: a date64 is a whole number of days, a decimal fits its precision. Python
     * runs that validation on every column it reads and writes, so Java checks the same two rules
     * both ways (docs/FORMAT.md, section 6.4). Returns why the values break them, or null.
     */
    static String legacyValueProblem(ArrowType type, long n, ByteBuffer validity, ByteBuffer data) {
        boolean date64 = type instanceof ArrowType.Date d && d.getUnit() == org.apache.arrow.vector.types.DateUnit.MILLISECOND;
        boolean decimal = type instanceof ArrowType.Decimal;
        if (!date64 && !decimal) {
            return null;
        }
        ByteBuffer values = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int width = decimal ? ((ArrowType.Decimal) type).getBitWidth() / 8 : 8;
        java.math.BigInteger limit = decimal ? java.math.BigInteger.TEN.pow(((ArrowType.Decimal) type).getPrecision()) : null;
        for (int k = 0; k < n && (long) (k + 1) * width <= values.remaining(); k++) {
            if (validity.remaining() > 0 && (validity.get(validity.position() + k / 8) & (1 << (k % 8))) == 0) {
                continue;
            }
            int at = values.position() + k * width;
            if (date64) {
                long ms = values.getLong(at);
                if (ms % 86_400_000L != 0) {
                    return "date64 value " + ms + " at slot " + k + " is not a whole number of days";
                }
            } else {
                byte[] bigEndian = new byte[width];
                for (int b = 0; b < width; b++) {
                    bigEndian[b] = values.get(at + width - 1 - b);
                }
                java.math.BigInteger value = new java.math.BigInteger(bigEndian);
                if (value.abs().compareTo(limit) >= 0) {
                    return "decimal value " + value + " at slot " + k + " does not fit its precision";
                }
            }
        }
        return null;
    }

    /** Every type id is one of the union's; a dense union's offsets are inside the child they pick. */
    private static void checkUnion(Node node, long[] childLengths) {
        ArrowType.Union union = (ArrowType.Union) node.field().getType();
        int[] ids = union.getTypeIds();
        int[] childOf = new int[128];
        java.util.Arrays.fill(childOf, -1);
        for (int c = 0; c < childLengths.length; c++) {
            childOf[ids == null ? c : ids[c]] = c;
        }
        ByteBuffer types = node.buffers().get(0);
        ByteBuffer offsets = union.getMode() == org.apache.arrow.vector.types.UnionMode.Dense
                ? node.buffers().get(1).duplicate().order(ByteOrder.LITTLE_ENDIAN) : null;
        for (int k = 0; k < node.length(); k++) {
            int id = types.get(types.position() + k);
            int child = id < 0 ? -1 : childOf[id];
            if (child < 0) {
                throw nodeError(node, "has type id " + id + " at slot " + k + ", which is not one of the union's");
            }
            if (offsets != null) {
                int offset = offsets.getInt(offsets.position() + 4 * k);
                if (offset < 0 || offset >= childLengths[child]) {
                    throw nodeError(node, "has offset " + offset + " at slot " + k + ", outside its child of "
                            + childLengths[child] + " slots");
                }
            }
        }
    }

    /** Views of 16 bytes per slot; a view of more than 12 bytes lies inside the data buffer it names. */
    private static void checkViews(Node node) {
        long n = node.length();
        requireSize(node, 1, "views", n * 16);
        ByteBuffer views = node.buffers().get(1).duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int dataBuffers = node.buffers().size() - 2;
        for (int k = 0; k < n; k++) {
            int at = views.position() + 16 * k;
            int length = views.getInt(at);
            if (length < 0) {
                throw nodeError(node, "has a negative length at slot " + k);
            }
            if (length > 12) {
                int index = views.getInt(at + 8);
                int offset = views.getInt(at + 12);
                if (index < 0 || index >= dataBuffers || offset < 0
                        || (long) offset + length > node.buffers().get(2 + index).remaining()) {
                    throw nodeError(node, "has a view at slot " + k + " outside its data buffers");
                }
            }
        }
    }

    /** Offsets and sizes of {@code width} bytes per slot, none negative; returns how long the child must be. */
    private static long listViews(Node node, int width) {
        long n = node.length();
        requireSize(node, 1, "offsets", n * width);
        requireSize(node, 2, "sizes", n * width);
        ByteBuffer offsets = node.buffers().get(1).duplicate().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer sizes = node.buffers().get(2).duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long end = 0;
        for (int k = 0; k < n; k++) {
            long offset = width == 4 ? offsets.getInt(offsets.position() + 4 * k) : offsets.getLong(offsets.position() + 8 * k);
            long size = width == 4 ? sizes.getInt(sizes.position() + 4 * k) : sizes.getLong(sizes.position() + 8 * k);
            if (offset < 0 || size < 0 || offset > Long.MAX_VALUE - size) {
                throw nodeError(node, "has offset " + offset + " and size " + size + " at slot " + k);
            }
            end = Math.max(end, offset + size);
        }
        return end;
    }

    private static void requireSize(Node node, int buffer, String what, long bytes) {
        long size = node.buffers().get(buffer).remaining();
        if (size < bytes) {
            throw nodeError(node, "has " + node.length() + " slots, whose " + what + " need " + bytes
                    + " bytes, but its buffer " + buffer + " has " + size);
        }
    }

    /** Checks the offsets in buffer {@code index} ({@code width} bytes each); returns the last. */
    private static long offsets(Node node, int index, int width) {
        long n = node.length();
        ByteBuffer b = node.buffers().get(index).duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (n == 0 && b.remaining() == 0) {
            return 0;
        }
        requireSize(node, index, "offsets", (n + 1) * width);
        long previous = 0;
        for (int k = 0; k <= n; k++) {
            // (n + 1) * width bytes are there (checked above), so these indexes fit an int.
            long offset = width == 4 ? b.getInt(b.position() + k * 4) : b.getLong(b.position() + k * 8);
            if (offset < previous) {
                throw nodeError(node, k == 0 ? "has a negative first offset " + offset
                        : "has offset " + offset + " at slot " + k + ", below the one before it (" + previous + ")");
            }
            previous = offset;
        }
        return previous;
    }

    private static DeserializationException nodeError(Node node, String what) {
        return new DeserializationException("Arrow node of field '" + node.field().getName() + "' ("
                + node.field().getType() + ") " + what, node.at());
    }
}
