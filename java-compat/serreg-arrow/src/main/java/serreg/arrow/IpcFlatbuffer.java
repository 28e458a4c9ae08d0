package serreg.arrow;

import java.nio.ByteBuffer;
import java.util.BitSet;
import serreg.DeserializationException;

/**
 * Bounds-checked reads of the flatbuffer of an Arrow IPC Schema message, every table, vector and
 * string reached claimed once: the Java twin of {@code _Flatbuffer} and {@code _Table} in Python's
 * {@code serializers/arrow_ipc_check.py}, with the same checks in the same order and the same words,
 * naming the same byte of the message. Arrow Java reads a table through its vtable without asking
 * where either lies, so every table it will read is checked here first: the table 4-byte aligned
 * and inside the message, its vtable inside the message and of a valid size, the table's declared
 * size inside the message, and each field read inside its table and aligned to its size.
 */
final class IpcFlatbuffer {
    private final ByteBuffer bytes;
    private final int size;
    /** Where the flatbuffer starts in the message, for the byte offsets in messages. */
    private final int base;
    private final long at;
    private final BitSet claimed;
    private long reached;
    /** The field being read, for messages (null: the message itself). */
    Where where;

    /** A field's place: column {@code index} (no parent) or child {@code index} of {@code parent}, and its name once read. */
    record Where(Where parent, int index, String name) {
    }

    /** {@code bytes}: the flatbuffer alone (little-endian, position 0), {@code base} bytes into the message. */
    IpcFlatbuffer(ByteBuffer bytes, int base, long at) {
        this.bytes = bytes;
        this.size = bytes.remaining();
        this.base = base;
        this.at = at;
        this.claimed = new BitSet(size);
    }

    int size() {
        return size;
    }

    DeserializationException fail(String problem, long position) {
        return new DeserializationException("invalid Arrow schema message: " + problem + " (in " + describe(where)
                + ", at byte " + (base + position) + " of the message)", at);
    }

    private void claim(int position, long nbytes, String what) {
        if (claimed.get(position)) {
            throw fail("the " + what + " at byte " + (base + position) + " is reached a second time; Arrow would copy it"
                    + " once per reference, so shared parts (a DAG) are refused", position);
        }
        claimed.set(position);
        reached += nbytes;
        if (reached > size) {
            throw fail("its tables, strings and vectors add up to more than its " + size + " bytes: parts overlap", position);
        }
    }

    /** The object a uoffset at {@code position} points to (offsets point forward only, never at themselves). */
    int target(int position) {
        long offset = Integer.toUnsignedLong(bytes.getInt(position));
        if (offset == 0) {
            throw fail("an offset of 0 points at itself", position);
        }
        long target = position + offset;
        if (target >= size) {
            throw fail("an offset points to byte " + (base + target) + ", past the end", position);
        }
        return (int) target;
    }

    Table table(int position, String what) {
        if (position % 4 != 0 || position + 4L > size) {
            throw fail("a " + what + " table at byte " + (base + position) + " is misaligned or past the end", position);
        }
        long vtable = (long) position - bytes.getInt(position);
        if (vtable < 0 || vtable % 2 != 0 || vtable + 4 > size) {
            throw fail("the vtable of a " + what + " table lies outside the message", position);
        }
        int vtableSize = Short.toUnsignedInt(bytes.getShort((int) vtable));
        int tableSize = Short.toUnsignedInt(bytes.getShort((int) vtable + 2));
        if (vtableSize < 4 || vtableSize % 2 != 0 || vtable + vtableSize > size) {
            throw fail("the vtable of a " + what + " table has an invalid size " + vtableSize, vtable);
        }
        if (tableSize < 4 || (long) position + tableSize > size) {
            throw fail("a " + what + " table of " + tableSize + " bytes runs past the end", position);
        }
        claim(position, tableSize, what + " table");
        return new Table(position, (int) vtable, (vtableSize - 4) / 2, tableSize, what);
    }

    /** Checks the vector at {@code position}; returns its element count (its first element is 4 bytes on). */
    int vector(int position, int elementSize, String what) {
        if (position % 4 != 0 || position + 4L > size) {
            throw fail("the " + what + " vector is misaligned or past the end", position);
        }
        long count = Integer.toUnsignedLong(bytes.getInt(position));
        long nbytes = 4 + count * elementSize;
        if (nbytes > size - position) {
            throw fail("the " + what + " vector declares " + count + " elements, more than the message holds", position);
        }
        claim(position, nbytes, what + " vector");
        return (int) count;
    }

    /** Checks the string at {@code position}; returns its bytes. */
    byte[] string(int position, String what) {
        if (position % 4 != 0 || position + 4L > size) {
            throw fail("the " + what + " string is misaligned or past the end", position);
        }
        long length = Integer.toUnsignedLong(bytes.getInt(position));
        if (length + 5 > size - position) {
            throw fail("the " + what + " string declares " + length + " bytes, more than the message holds", position);
        }
        if (bytes.get(position + 4 + (int) length) != 0) {
            throw fail("the " + what + " string is not NUL-terminated", position + 4 + length);
        }
        claim(position, length + 5, what + " string");
        byte[] out = new byte[(int) length];
        bytes.get(position + 4, out);
        return out;
    }

    /** One table: its field offsets are read from its vtable, each field checked as it is read. */
    final class Table {
        final int position;
        private final int vtable;
        private final int slots;
        private final int tableSize;
        private final String what;

        private Table(int position, int vtable, int slots, int tableSize, String what) {
            this.position = position;
            this.vtable = vtable;
            this.slots = slots;
            this.tableSize = tableSize;
            this.what = what;
        }

        /** Where the field in slot {@code index} (of {@code fieldSize} bytes) lies, or -1 if it is absent. */
        private int slot(int index, int fieldSize) {
            if (index >= slots) {
                return -1;
            }
            int offset = Short.toUnsignedInt(bytes.getShort(vtable + 4 + 2 * index));
            if (offset == 0) {
                return -1;
            }
            int at = position + offset;
            if (offset + fieldSize > tableSize || at % fieldSize != 0) {
                throw fail("field " + index + " of a " + what + " table is misaligned or outside the table", at);
            }
            return at;
        }

        /** Whether the table has field {@code index}. */
        boolean present(int index) {
            return index < slots && bytes.getShort(vtable + 4 + 2 * index) != 0;
        }

        int u8(int index, int absent) {
            int at = slot(index, 1);
            return at < 0 ? absent : Byte.toUnsignedInt(bytes.get(at));
        }

        int i16(int index, int absent) {
            int at = slot(index, 2);
            return at < 0 ? absent : bytes.getShort(at);
        }

        int i32(int index, int absent) {
            int at = slot(index, 4);
            return at < 0 ? absent : bytes.getInt(at);
        }

        long i64(int index, long absent) {
            int at = slot(index, 8);
            return at < 0 ? absent : bytes.getLong(at);
        }

        /** The table in slot {@code index}, checked, or null if absent. */
        Table table(int index, String kind) {
            int at = slot(index, 4);
            return at < 0 ? null : IpcFlatbuffer.this.table(target(at), kind);
        }

        /** The string in slot {@code index}, checked, or null if absent. */
        byte[] string(int index, String kind) {
            int at = slot(index, 4);
            return at < 0 ? null : IpcFlatbuffer.this.string(target(at), kind);
        }

        /** The values of the vector of int32 in slot {@code index} (null if absent). */
        int[] int32Vector(int index, String kind) {
            int at = slot(index, 4);
            if (at < 0) {
                return null;
            }
            int vector = target(at);
            int[] values = new int[IpcFlatbuffer.this.vector(vector, 4, kind)];
            for (int i = 0; i < values.length; i++) {
                values[i] = bytes.getInt(vector + 4 + 4 * i);
            }
            return values;
        }

        /** The tables of the vector of tables in slot {@code index}, each checked (empty if absent). */
        java.util.List<Table> tables(int index, String kind) {
            int at = slot(index, 4);
            if (at < 0) {
                return java.util.List.of();
            }
            int vector = target(at);
            int count = IpcFlatbuffer.this.vector(vector, 4, kind);
            java.util.List<Table> out = new java.util.ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                out.add(IpcFlatbuffer.this.table(target(vector + 4 + 4 * i), kind));
            }
            return out;
        }

        /** Checks the vector of scalars in slot {@code index} (its contents are not needed). */
        void vector(int index, int elementSize, String kind) {
            int at = slot(index, 4);
            if (at >= 0) {
                IpcFlatbuffer.this.vector(target(at), elementSize, kind);
            }
        }
    }

    /** "column 2 ('b') > child 0 ('item')" for a field's place; "the message" for none, as Python says it. */
    static String describe(Where where) {
        if (where == null) {
            return "the message";
        }
        java.util.ArrayDeque<String> parts = new java.util.ArrayDeque<>();
        for (Where w = where; w != null; w = w.parent()) {
            String label = (w.parent() == null ? "column " : "child ") + w.index();
            if (w.name() != null) {
                String name = w.name();
                if (name.codePointCount(0, name.length()) > 60) {
                    name = name.substring(0, name.offsetByCodePoints(0, 60));
                }
                label += " (" + PythonText.repr(name) + ")";
            }
            parts.addFirst(label);
        }
        return String.join(" > ", parts);
    }
}
