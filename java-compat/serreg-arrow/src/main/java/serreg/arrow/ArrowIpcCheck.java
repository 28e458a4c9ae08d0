package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.flatbuf.Endianness;
import org.apache.arrow.flatbuf.KeyValue;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.Timestamp;
import org.apache.arrow.flatbuf.Type;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.DeserializationException;
import serreg.InBandReader;

/**
 * Checks an encapsulated Arrow IPC Schema message before Arrow Java reads it (docs/FORMAT.md
 * section 4.3), the Java twin of Python's {@code serializers/arrow_ipc_check.py}: the flatbuffer
 * is walked once, within its bounds and in time linear in its size, so that a message whose
 * parts loop or are shared (a DAG) cannot make Arrow's conversion recurse without end or copy a
 * few kilobytes into gigabytes; the fields and strings Arrow will build are charged to the call.
 * The types the fields hold are checked afterwards by {@link ArrowChecks#checkSchema}.
 */
final class ArrowIpcCheck {
    private ArrowIpcCheck() {
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
            Walk walk = new Walk(metadata, pos + 4, at);
            for (int i = 0; i < fb.fieldsLength(); i++) {
                walk.field(fb.fields(i), 1);
            }
            walk.fieldName = null;
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
        /** The flatbuffer (the message's metadata) and where it starts in the message, for offsets in messages. */
        private final ByteBuffer metadata;
        private final int base;
        private final int length;
        /** The name of the field being walked (null for the schema's own metadata), for messages. */
        String fieldName;
        private int fieldsLeft;
        private int stringBytesLeft;
        private long fields;

        Walk(ByteBuffer metadata, int base, long at) {
            int length = metadata.remaining();
            this.metadata = metadata;
            this.base = base;
            this.length = length;
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
            if (depth > ArrowChecks.MAX_FIELD_NESTING || --fieldsLeft < 0) {
                throw new DeserializationException("the Arrow schema message nests fields more than " + ArrowChecks.MAX_FIELD_NESTING
                        + " deep, or names more fields than its bytes can hold", at);
            }
            ByteBuffer name = field.nameAsByteBuffer();
            if (name == null) {
                throw new DeserializationException("the Arrow schema message has a field without a name", at);
            }
            table(field, "field");
            string(name);
            fieldName = field.name();
            // Arrow Java reads a table through its vtable without asking where either lies: a
            // DictionaryEncoding table (and its index's Int table) whose vtable or fields lie outside
            // the message would be read from other bytes, or as an empty table. Checked as Python does.
            int encoding = slotTable(position(field), 4, "DictionaryEncoding");
            if (encoding >= 0) {
                org.apache.arrow.flatbuf.DictionaryEncoding dictionary = field.dictionary();
                table(dictionary, "DictionaryEncoding");
                slot(encoding, 0, 8, "DictionaryEncoding"); // id
                slot(encoding, 2, 1, "DictionaryEncoding"); // isOrdered
                slot(encoding, 3, 2, "DictionaryEncoding"); // dictionaryKind
                int indexTable = slotTable(encoding, 1, "Int");
                if (indexTable >= 0) {
                    slot(indexTable, 0, 4, "Int"); // bitWidth
                    slot(indexTable, 1, 1, "Int"); // is_signed
                }
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
            if (field.typeType() == Type.Union) {
                org.apache.arrow.flatbuf.Union union = (org.apache.arrow.flatbuf.Union) field.type(new org.apache.arrow.flatbuf.Union());
                // Arrow Java makes an int[] of the declared count before reading an id: a count from the
                // bytes could ask for gigabytes. A union has at most 128 children, each with one id.
                int ids = union == null ? 0 : union.typeIdsLength();
                if (ids < 0 || ids > 128) {
                    throw new DeserializationException("the Arrow schema message's union field '" + field.name()
                            + "' declares " + Integer.toUnsignedString(ids) + " type ids; a union has at most 128 children,"
                            + " each with one id", at);
                }
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
            if (ofField && ArrowChecks.EXTENSION_NAME.equals(kv.key()) && kv.value() != null
                    && !ArrowChecks.CANONICAL_EXTENSIONS.contains(kv.value())
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

        private DeserializationException outside(String problem, int position) {
            return new DeserializationException("invalid Arrow schema message: " + problem + " (in "
                    + (fieldName == null ? "the message" : "field '" + fieldName + "'") + ", at byte "
                    + (base + (long) position) + " of the message)", at);
        }

        /**
         * Checks the field in slot {@code index} of the table at {@code table} (of {@code size}
         * bytes): inside the table and aligned; returns where it is, or -1 if it is absent.
         */
        private int slot(int table, int index, int size, String what) {
            int vtable = table - metadata.getInt(table);
            int vtableSize = Short.toUnsignedInt(metadata.getShort(vtable));
            if (4 + 2 * index + 2 > vtableSize) {
                return -1;
            }
            int offset = Short.toUnsignedInt(metadata.getShort(vtable + 4 + 2 * index));
            if (offset == 0) {
                return -1;
            }
            int position = table + offset;
            if (offset + size > Short.toUnsignedInt(metadata.getShort(vtable + 2)) || position % size != 0) {
                throw outside("field " + index + " of a " + what + " table is misaligned or outside the table", position);
            }
            return position;
        }

        /**
         * Checks the table that the offset in slot {@code index} of the table at {@code table}
         * points to (its vtable and its bytes inside the message); returns where it is, or -1 if
         * the slot is absent.
         */
        private int slotTable(int table, int index, String what) {
            int slot = slot(table, index, 4, what);
            if (slot < 0) {
                return -1;
            }
            long target = slot + Integer.toUnsignedLong(metadata.getInt(slot));
            if (target >= length) {
                throw outside("an offset points to byte " + (base + target) + ", past the end", slot);
            }
            int position = (int) target;
            if (position % 4 != 0 || position + 4 > length) {
                throw outside("a " + what + " table at byte " + (base + position) + " is misaligned or past the end", position);
            }
            long vtable = (long) position - metadata.getInt(position);
            if (vtable < 0 || vtable % 2 != 0 || vtable + 4 > length) {
                throw outside("the vtable of a " + what + " table lies outside the message", position);
            }
            int vtableSize = Short.toUnsignedInt(metadata.getShort((int) vtable));
            int tableSize = Short.toUnsignedInt(metadata.getShort((int) vtable + 2));
            if (vtableSize < 4 || vtableSize % 2 != 0 || vtable + vtableSize > length) {
                throw outside("the vtable of a " + what + " table has an invalid size " + vtableSize, (int) vtable);
            }
            if (tableSize < 4 || (long) position + tableSize > length) {
                throw outside("a " + what + " table of " + tableSize + " bytes runs past the end", position);
            }
            return position;
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
}
