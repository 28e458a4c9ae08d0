package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.flatbuf.Endianness;
import org.apache.arrow.flatbuf.KeyValue;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.Timestamp;
import org.apache.arrow.flatbuf.Type;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.DeserializationException;
import serreg.InBandReader;

/**
 * What the Arrow readers check before Arrow Java sees a byte from a frame (docs/FORMAT.md
 * section 4.3): the schema holds only the standard types of section 6.4 in the shapes Arrow
 * defines, and every node's buffers are as long as its length and type need, with offsets in
 * order and within their data. Arrow Java's own loading trusts these things; reading past a buffer,
 * or resizing vectors to a hostile length, is what the checks prevent.
 */
final class ArrowChecks {
    /** Fields nested deeper than this are refused (Arrow C++ reads IPC schemas up to the same depth). */
    static final int MAX_FIELD_NESTING = 64;

    private ArrowChecks() {
    }

    /**
     * Parses an encapsulated IPC Schema message held in a bin. The flatbuffer is walked once,
     * within its bounds, before Arrow converts it: a flatbuffer whose offsets loop or share
     * tables could otherwise make the conversion recurse without end or take exponential time.
     * Every field counts against a budget of a field per 4 bytes, and every name, metadata key
     * and value and time zone against one of the message's own length: Arrow copies a string
     * once per reference, so names shared by many fields (a DAG) would make a few kilobytes
     * cost gigabytes (an OutOfMemoryError on c2967a7); shared or overlapping parts exceed it.
     */
    static Schema readIpcSchema(ByteBuffer bin, long at) {
        return readIpcSchema(bin, at, null);
    }

    /** Heap bytes Arrow Java takes per Field it makes from a schema message, beyond the name (measured, rounded up). */
    static final long FIELD_COST = 512;

    /**
     * As {@link #readIpcSchema(ByteBuffer, long)}, charging the fields and strings Arrow Java will
     * build to {@code in}'s deserialize call before it builds them (when {@code in} is not null).
     */
    static Schema readIpcSchema(ByteBuffer bin, long at, InBandReader in) {
        ByteBuffer b = bin.slice().order(ByteOrder.LITTLE_ENDIAN);
        try {
            int pos = 0;
            if (b.remaining() >= 4 && b.getInt(0) == -1) {
                pos = 4; // continuation marker
            }
            if (b.remaining() < pos + 4) {
                throw new DeserializationException("the Arrow schema bin holds no IPC message", at);
            }
            int length = b.getInt(pos);
            if (length <= 0 || length > b.remaining() - pos - 4) {
                throw new DeserializationException("the Arrow schema message declares " + Integer.toUnsignedString(length)
                        + " bytes of metadata, but its bin has " + (b.remaining() - pos - 4) + " after the length", at);
            }
            ByteBuffer metadata = b.slice(pos + 4, length).order(ByteOrder.LITTLE_ENDIAN);
            Message message = Message.getRootAsMessage(metadata);
            if (message.headerType() != MessageHeader.Schema) {
                throw new DeserializationException("the Arrow schema bin holds a "
                        + MessageHeader.name(message.headerType() & 0xff) + " message, not a Schema", at);
            }
            org.apache.arrow.flatbuf.Schema fb = (org.apache.arrow.flatbuf.Schema) message.header(new org.apache.arrow.flatbuf.Schema());
            if (fb.endianness() != Endianness.Little) {
                throw new DeserializationException("the Arrow schema is big-endian; serreg frames carry little-endian buffers", at);
            }
            Walk walk = new Walk(length, at);
            for (int i = 0; i < fb.fieldsLength(); i++) {
                walk.field(fb.fields(i), 1);
            }
            for (int i = 0; i < fb.customMetadataLength(); i++) {
                walk.keyValue(fb.customMetadata(i), false);
            }
            if (in != null) {
                // A Java String holds a name's UTF-16 (2 bytes per char) beside its object headers.
                in.reserveAllocation(FIELD_COST * walk.fields + 2L * (length - walk.stringBytesLeft),
                        "Arrow schema fields (" + walk.fields + ")", at);
            }
            return MessageSerializer.deserializeSchema(message);
        } catch (DeserializationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DeserializationException("the Arrow schema bin is not a valid IPC Schema message: " + e, at, e);
        }
    }

    /**
     * One walk of a Schema message's field tree. Every string (name, metadata key and value, time
     * zone) must be reached once only: Arrow writers never share them, and a flatbuffer whose
     * fields share a name, a child vector or a whole field table (a DAG) would be copied once per
     * reference. As a field has a name of its own, this bounds the fields by the message's bytes
     * (a field table, its vtable reference and its name take at least 12 bytes), and every string
     * byte counts against the message's length as well (overlapping strings exceed it).
     */
    private static final class Walk {
        private final java.util.BitSet seen;
        private final java.util.BitSet tables;
        private final long at;
        private int fieldsLeft;
        private int stringBytesLeft;
        private long fields;

        Walk(int length, long at) {
            this.seen = new java.util.BitSet(length);
            this.tables = new java.util.BitSet(length);
            this.at = at;
            this.fieldsLeft = length / 12;
            this.stringBytesLeft = length;
        }

        void field(org.apache.arrow.flatbuf.Field field, int depth) {
            if (field == null) {
                throw new DeserializationException("the Arrow schema message has a missing field", at);
            }
            fields++;
            if (depth > MAX_FIELD_NESTING || --fieldsLeft < 0) {
                throw new DeserializationException("the Arrow schema message nests fields more than " + MAX_FIELD_NESTING
                        + " deep, or names more fields than its bytes can hold", at);
            }
            ByteBuffer name = field.nameAsByteBuffer();
            if (name == null) {
                throw new DeserializationException("the Arrow schema message has a field without a name", at);
            }
            table(field, "field");
            string(name);
            if (field.dictionary() != null) {
                org.apache.arrow.flatbuf.DictionaryEncoding dictionary = field.dictionary();
                table(dictionary, "dictionary encoding");
                org.apache.arrow.flatbuf.Int index = dictionary.indexType();
                if (index != null) {
                    int bits = index.bitWidth();
                    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
                        throw new DeserializationException("an Arrow dictionary's index is an integer of " + bits
                                + " bits (8, 16, 32 or 64)", at);
                    }
                }
            }
            com.google.flatbuffers.Table type = field.type(new com.google.flatbuffers.Table());
            if (type != null) {
                table(type, "type");
            }
            if (field.typeType() == Type.Timestamp) {
                Timestamp ts = (Timestamp) field.type(new Timestamp());
                if (ts != null && ts.timezoneAsByteBuffer() != null) {
                    string(ts.timezoneAsByteBuffer());
                }
            }
            for (int i = 0; i < field.customMetadataLength(); i++) {
                keyValue(field.customMetadata(i), true);
            }
            for (int i = 0; i < field.childrenLength(); i++) {
                field(field.children(i), depth + 1);
            }
        }

        void keyValue(KeyValue kv, boolean ofField) {
            // Each accessor bounds-checks its string against the buffer (throws if it runs past).
            if (kv == null || kv.keyAsByteBuffer() == null || kv.valueAsByteBuffer() == null) {
                throw new DeserializationException("the Arrow schema message has a metadata entry without a key or a value", at);
            }
            table(kv, "metadata entry");
            if (ofField && EXTENSION_NAME.equals(kv.key()) && kv.value() != null
                    && !CANONICAL_EXTENSIONS.contains(kv.value())
                    && org.apache.arrow.vector.types.pojo.ExtensionTypeRegistry.lookup(kv.value()) != null) {
                // Arrow Java would hand the metadata to the deserializer of the extension type of that name
                // registered in this JVM while it reads the schema: refused before it does. A name nobody
                // registered is read as its storage with the keys in the field's metadata, and no code runs
                // (docs/FORMAT.md sections 4.4 and 6.4).
                throw new DeserializationException("an Arrow field names the extension type '" + kv.value()
                        + "', which is registered in this JVM: reading it would run that type's code on the frame's"
                        + " bytes", at);
            }
            string(kv.keyAsByteBuffer());
            string(kv.valueAsByteBuffer());
        }

        /** Marks a table's position (the byte its offset to its vtable sits at): a second reference lands on it again. */
        private void table(com.google.flatbuffers.Table table, String what) {
            int position = position(table);
            if (position < 0 || position >= tables.size() || tables.get(position)) {
                throw new DeserializationException("an Arrow schema " + what + " table is reached a second time: the"
                        + " message's parts are shared (a DAG), and Arrow would copy them once per reference", at);
            }
            tables.set(position);
        }

        private void string(ByteBuffer bytes) {
            // A flatbuffer string's position is where its bytes start in the message: a second
            // reference to the same string lands on the same position.
            int position = bytes.position();
            stringBytesLeft -= bytes.remaining();
            if (seen.get(position) || stringBytesLeft < 0) {
                throw new DeserializationException("an Arrow schema string is reached a second time, or the message's"
                        + " strings add up to more bytes than it holds: its parts are shared (a DAG) or overlap, and Arrow"
                        + " would copy them once per reference", at);
            }
            seen.set(position);
        }
    }

    /** The position of a flatbuffer table in its buffer (flatbuffers keeps it in a protected field). */
    private static final java.lang.reflect.Field BB_POS = bbPos();

    private static java.lang.reflect.Field bbPos() {
        try {
            java.lang.reflect.Field f = com.google.flatbuffers.Table.class.getDeclaredField("bb_pos");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static int position(com.google.flatbuffers.Table table) {
        try {
            return BB_POS.getInt(table);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final String EXTENSION_NAME = "ARROW:extension:name";
    private static final String EXTENSION_METADATA = "ARROW:extension:metadata";
    /** Arrow's canonical extension types, implemented by Arrow itself (no user code runs for them). */
    private static final java.util.Set<String> CANONICAL_EXTENSIONS = java.util.Set.of(
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
                if (((ArrowType.FixedSizeBinary) type).getByteWidth() <= 0) {
                    throw bad(field, "is a fixed-size binary of width " + ((ArrowType.FixedSizeBinary) type).getByteWidth()
                            + "; Arrow Java holds widths of 1 byte or more", at);
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
                // any number of children
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

    private static void requireChildren(Field field, int count, long at) {
        if (field.getChildren().size() != count) {
            throw bad(field, "of type " + field.getType() + " has " + field.getChildren().size() + " children, not " + count, at);
        }
    }

    private static DeserializationException bad(Field field, String what, long at) {
        return new DeserializationException("Arrow field '" + field.getName() + "' " + what, at);
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
