package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import serreg.DeserializationException;
import serreg.InBandReader;

/**
 * Checks an encapsulated Arrow IPC Schema message before Arrow Java reads it (docs/FORMAT.md
 * sections 4.3 and 6.4), the Java twin of Python's {@code serializers/arrow_ipc_check.py}: the
 * flatbuffer is walked once ({@link IpcFlatbuffer}), within its bounds and in time linear in its
 * size, every table and vtable Arrow Java will read checked inside the message, so that a message
 * whose parts lie outside it, loop or are shared (a DAG) cannot make Arrow's conversion read other
 * bytes, recurse without end or copy a few kilobytes into gigabytes; the type tables are checked
 * as Python does ({@link ArrowIpcTypes}); the fields and strings Arrow will build are charged to
 * the call. A refusal says the words Python says and names the same byte of the message. The
 * fields Arrow Java builds are checked afterwards by {@link ArrowChecks#checkSchema}.
 */
final class ArrowIpcCheck {
    private ArrowIpcCheck() {
    }

    /**
     * Parses an encapsulated IPC Schema message held in a bin, after {@link #check} has walked it.
     */
    static Schema readIpcSchema(ByteBuffer bin, long at) {
        return readIpcSchema(bin, at, null);
    }

    /** Heap bytes Arrow Java takes per Field it makes from a schema message, beyond the name (measured, rounded up). */
    static final long FIELD_COST = 512;

    /** An encapsulated message starts with this marker, then the flatbuffer's length. */
    private static final int CONTINUATION = -1;

    /**
     * As {@link #readIpcSchema(ByteBuffer, long)}, charging the fields and strings Arrow Java will
     * build to {@code in}'s deserialize call before it builds them (when {@code in} is not null).
     */
    static Schema readIpcSchema(ByteBuffer bin, long at, InBandReader in) {
        ByteBuffer b = bin.slice().order(ByteOrder.LITTLE_ENDIAN);
        Counts counts = check(b, at);
        if (in != null) {
            // A Java String holds a name's UTF-16 (2 bytes per char) beside its object headers.
            in.reserveAllocation(FIELD_COST * counts.fields + 2L * counts.stringBytes,
                    "Arrow schema fields (" + counts.fields + ")", at);
        }
        try {
            Message message = Message.getRootAsMessage(b.slice(8, b.remaining() - 8).order(ByteOrder.LITTLE_ENDIAN));
            Schema schema = MessageSerializer.deserializeSchema(message);
            return counts.nameless == 0 ? schema : new Schema(named(schema.getFields()), schema.getCustomMetadata());
        } catch (RuntimeException e) {
            throw new DeserializationException("the Arrow schema bin is not a valid IPC Schema message: " + e, at, e);
        }
    }

    /** {@code fields} with a field Arrow Java read without a name (a null name) named "", as Python reads it. */
    private static java.util.List<Field> named(java.util.List<Field> fields) {
        java.util.List<Field> out = new java.util.ArrayList<>(fields.size());
        for (Field f : fields) {
            out.add(new Field(f.getName() == null ? "" : f.getName(), f.getFieldType(), named(f.getChildren())));
        }
        return out;
    }

    /** What a checked Schema message holds: every field (children included), the deepest nesting, metadata entries, string bytes. */
    static final class Counts {
        long fields;
        int depth;
        long metadataEntries;
        long stringBytes;
        /** Fields without a name (Python and Arrow C++ read them as named "", Arrow Java as named null). */
        long nameless;
        /**
         * The first thing Arrow Java cannot read that Python reads (metadata that is not UTF-8, a
         * 32- or 64-bit decimal, a list's child without a name),
         * raised once the walk Python also makes has found nothing: where Python refuses a message,
         * Java says the same words.
         */
        DeserializationException javaRefusal;
    }

    /**
     * Checks an encapsulated IPC Schema message (the bin's bytes, little-endian) as Python's
     * {@code check_schema_message} does, in the same order with the same words: the continuation
     * marker and a length that is the rest of the bin; the Message table (version V4 or V5, a
     * Schema header, no body, its metadata); the Schema table (little-endian, its metadata and
     * features); then every field depth-first (name, nesting, type tag and table, children,
     * dictionary encoding, metadata). Every table, vtable, vector and string Arrow Java will read is
     * checked inside the message, each field of a table inside it and aligned, and nothing is
     * reached twice or overlaps (so what Arrow builds grows with the message's size).
     */
    static Counts check(ByteBuffer b, long at) {
        int size = b.remaining();
        if (size < 8 || b.getInt(0) != CONTINUATION) {
            throw new DeserializationException("invalid Arrow schema message: it does not start with the IPC continuation"
                    + " marker 0xFFFFFFFF (the pre-1.0 IPC format is not read)", at);
        }
        int length = b.getInt(4);
        if (length < 8 || 8L + length != size) {
            throw new DeserializationException("invalid Arrow schema message: its flatbuffer is said to be " + length
                    + " bytes, but " + (size - 8) + " follow", at);
        }
        IpcFlatbuffer buffer = new IpcFlatbuffer(b.slice(8, length).order(ByteOrder.LITTLE_ENDIAN), 8, at);
        Counts counts = new Counts();
        IpcFlatbuffer.Table message = buffer.table(buffer.target(0), "Message");
        int version = message.i16(0, 0);
        if (version != 3 && version != 4) {
            throw buffer.fail("metadata version " + version + " is not V4 or V5", 0);
        }
        int headerType = message.u8(1, 0);
        if (headerType != MessageHeader.Schema) {
            throw buffer.fail("the message is not a Schema message (header type " + headerType + ")", 0);
        }
        if (message.i64(3, 0) != 0) {
            throw buffer.fail("a Schema message has no body, but this one declares one", 0);
        }
        metadata(buffer, message, 4, counts, false);
        IpcFlatbuffer.Table schema = message.table(2, "Schema");
        if (schema == null) {
            throw buffer.fail("the message has no schema", 0);
        }
        if (schema.i16(0, 0) != 0) {
            throw buffer.fail("the schema is big-endian; serreg's Arrow buffers are little-endian", schema.position);
        }
        metadata(buffer, schema, 2, counts, false);
        schema.vector(3, 8, "features");
        if (!schema.present(1)) { // Arrow C++ refuses a schema without a fields vector
            throw buffer.fail("the schema has no fields vector", schema.position);
        }
        java.util.List<IpcFlatbuffer.Table> columns = schema.tables(1, "Field");
        // Depth-first, without recursion, as Python: (field table, depth, where it is, type tag of its parent).
        java.util.ArrayDeque<Pending> stack = new java.util.ArrayDeque<>();
        for (int i = columns.size() - 1; i >= 0; i--) {
            stack.push(new Pending(columns.get(i), 1, new IpcFlatbuffer.Where(null, i, null), 0));
        }
        while (!stack.isEmpty()) {
            field(buffer, stack.pop(), counts, stack);
        }
        if (counts.javaRefusal != null) {
            throw counts.javaRefusal;
        }
        return counts;
    }

    private record Pending(IpcFlatbuffer.Table field, int depth, IpcFlatbuffer.Where where, int parentTag) {
    }

    /** Checks one field; pushes its children (in reverse, so they are visited in order). */
    private static void field(IpcFlatbuffer buffer, Pending pending, Counts counts, java.util.ArrayDeque<Pending> stack) {
        IpcFlatbuffer.Table field = pending.field();
        buffer.where = pending.where();
        byte[] nameBytes = field.string(0, "field name");
        if (nameBytes == null) {
            counts.nameless++;
            nameBytes = new byte[0];
            if ((pending.parentTag() == LIST || pending.parentTag() == FIXED_SIZE_LIST) && counts.javaRefusal == null) {
                // Java only: Arrow Java compares a list's child's name with "[DEFAULT]" while it converts the
                // schema, and throws NullPointerException on a child without one (Python reads it as named "").
                counts.javaRefusal = buffer.fail("the field has no name, which Arrow Java cannot read in a list",
                        field.position);
            }
        }
        String problem = PythonText.utf8Problem(nameBytes);
        if (problem != null) {
            throw buffer.fail("the field name is not UTF-8 (" + problem + ")", field.position);
        }
        String name = new String(nameBytes, StandardCharsets.UTF_8);
        IpcFlatbuffer.Where where = new IpcFlatbuffer.Where(pending.where().parent(), pending.where().index(), name);
        buffer.where = where;
        counts.fields++;
        counts.stringBytes += nameBytes.length;
        if (pending.depth() > counts.depth) {
            counts.depth = pending.depth();
            if (pending.depth() > ArrowChecks.MAX_FIELD_NESTING) {
                throw buffer.fail("fields are nested more than " + ArrowChecks.MAX_FIELD_NESTING + " deep", field.position);
            }
        }
        field.u8(1, 0); // nullable: any byte is read as a bool
        int tag = field.u8(2, 0);
        String refused = ArrowIpcTypes.refusedType(tag);
        if (refused != null) {
            throw buffer.fail("the field has " + refused + " (docs/FORMAT.md, section 6.4)", field.position);
        }
        String typeName = ArrowIpcTypes.NAMES[tag];
        IpcFlatbuffer.Table type = field.table(3, typeName);
        if (type == null) {
            throw buffer.fail("the field has no type table", field.position);
        }
        java.util.List<IpcFlatbuffer.Table> children = field.tables(5, "Field");
        ArrowIpcTypes.checkType(buffer, tag, type, counts, children.size());
        IpcFlatbuffer.Table encoding = field.table(4, "DictionaryEncoding");
        if (encoding != null) {
            ArrowIpcTypes.checkDictionary(buffer, encoding);
        }
        metadata(buffer, field, 6, counts, true);
        int childCount = ArrowIpcTypes.CHILDREN[tag];
        if (childCount >= 0 && children.size() != childCount) {
            throw buffer.fail("a " + typeName + " field needs " + childCount + " child field(s), this one has "
                    + children.size(), field.position);
        }
        if (pending.parentTag() == ArrowIpcTypes.MAP && (tag != ArrowIpcTypes.STRUCT || children.size() != 2)) {
            throw buffer.fail("the child of a Map field must be a struct of key and value", field.position);
        }
        for (int i = children.size() - 1; i >= 0; i--) {
            stack.push(new Pending(children.get(i), pending.depth() + 1, new IpcFlatbuffer.Where(where, i, null), tag));
        }
    }

    /** Type tags (Schema.fbs) of the lists whose child Arrow Java renames by its name. */
    private static final int LIST = 12;
    private static final int FIXED_SIZE_LIST = 16;

    /** Python's {@code repr} of the reserved key {@code HIDDEN_EXTENSION_NAME}, for the same words. */
    private static final String HIDDEN_EXTENSION_NAME_REPR = "b'\\x00RROW:extension:name'";

    /** Checks the metadata (a vector of KeyValue tables) in slot {@code index} of {@code table}. */
    private static void metadata(IpcFlatbuffer buffer, IpcFlatbuffer.Table table, int index, Counts counts, boolean ofField) {
        for (IpcFlatbuffer.Table entry : table.tables(index, "KeyValue")) {
            byte[] key = entry.string(0, "metadata key");
            byte[] value = entry.string(1, "metadata value");
            if (key == null || value == null) { // Arrow C++ refuses them too
                throw buffer.fail("a metadata entry has no " + (key == null ? "key" : "value"), entry.position);
            }
            counts.metadataEntries++;
            counts.stringBytes += key.length + value.length;
            String keyText = new String(key, StandardCharsets.ISO_8859_1);
            if (keyText.equals("\u0000" + ArrowChecks.EXTENSION_NAME.substring(1))) {
                throw buffer.fail("the metadata key " + HIDDEN_EXTENSION_NAME_REPR + " is reserved (docs/FORMAT.md,"
                        + " section 6.4)", entry.position);
            }
            if (keyText.equals(ArrowChecks.EXTENSION_NAME)) {
                if (!ofField) {
                    throw buffer.fail("only a field's metadata may name an extension type", entry.position);
                }
                String name = new String(value, StandardCharsets.UTF_8);
                if (PythonText.utf8Problem(value) == null && !ArrowChecks.CANONICAL_EXTENSIONS.contains(name)
                        && org.apache.arrow.vector.types.pojo.ExtensionTypeRegistry.lookup(name) != null) {
                    // Arrow Java would hand the metadata to the deserializer of the extension type of that name
                    // registered in this JVM while it reads the schema: refused before it does. A name nobody
                    // registered is read as its storage with the keys in the field's metadata, and no code runs
                    // (docs/FORMAT.md sections 4.4 and 6.4).
                    throw buffer.fail("an Arrow field names the extension type '" + name + "', which is registered in"
                            + " this JVM: reading it would run that type's code on the frame's bytes", entry.position);
                }
            }
            // Java only: Arrow Java reads metadata as Java strings, and its flatbuffer reader throws on bytes
            // that are not UTF-8 (Python keeps them as bytes).
            for (byte[] text : new byte[][] {key, value}) {
                String problem = PythonText.utf8Problem(text);
                if (problem != null && counts.javaRefusal == null) {
                    counts.javaRefusal = buffer.fail("a metadata " + (text == key ? "key" : "value") + " is not UTF-8 (" + problem
                            + "), which Arrow Java cannot read", entry.position);
                }
            }
        }
    }

}
