package serreg.structs;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.LimitExceededException;
import serreg.StructSupport;
import serreg.wire.ClassIdHash;

/**
 * The struct table of the frame being written or read (docs/FORMAT.md section 10.1), held per
 * thread. A serialize call opens a {@link Scope}: each struct instance written takes the index of
 * its definition, adding it on first use; {@link #wrap} then puts the table in front of the
 * value's section. Reading, the {@code serreg.structs} serializer pushes the table's readers and
 * every ext 1 inside is read by {@link #readInstance}.
 */
public final class StructFrames {
    /** At most this many definitions in a table (and fields in a definition). */
    static final int MAX_DEFINITIONS = 65535;
    static final ClassIdHash STRUCTS_HASH = ClassIdHash.of("serreg.structs");

    private StructFrames() {
    }

    /**
     * The definitions met in one serialize call, in first-use order, or fixed in advance (the
     * canonical form's sorted table: a definition not listed is refused).
     */
    public static final class Scope implements StructSupport.Table {
        private final Scope outer;
        private final Map<StructSchema.DefinitionKey, Integer> index = new HashMap<>();
        private final List<byte[]> definitions = new ArrayList<>();
        /** Fixed order: which listed definitions were written (null in first-use order). */
        private final boolean[] used;
        private int usedCount;
        /** The last definition looked up and its index (a list of structs repeats one). */
        private byte[] last;
        private int lastIndex;

        private Scope(Scope outer, List<byte[]> order) {
            this.outer = outer;
            this.used = order == null ? null : new boolean[order.size()];
            if (order != null) {
                for (byte[] d : order) {
                    index.put(new StructSchema.DefinitionKey(d), definitions.size());
                    definitions.add(d);
                }
            }
        }

        @Override
        public byte[] wrap(ByteBuffer section, Object value) {
            if (used != null && usedCount != used.length) {
                throw new serreg.SerializationException("the value changed while its canonical form was written: a"
                        + " struct definition met on the first pass was not met on the second");
            }
            return StructFrames.wrap(this, section, value);
        }

        @Override
        public List<byte[]> definitions() {
            return java.util.Collections.unmodifiableList(definitions);
        }

        @Override
        public void close() {
            end(this);
        }
    }

    /** Reads one instance's field values (the array header and index already read and checked). */
    interface InstanceReader {
        Object read(InBandReader in);
    }

    /** One definition of a table being read. */
    record Entry(String classId, int fieldCount, InstanceReader reader) {
    }

    private static final ThreadLocal<Scope> WRITING = new ThreadLocal<>();
    private static final ThreadLocal<ArrayDeque<List<Entry>>> READING = ThreadLocal.withInitial(ArrayDeque::new);

    /**
     * Opens the struct table of a serialize call on this thread (nested calls get their own).
     *
     * @return the scope, to pass to {@link #wrap} and {@link #end}
     */
    public static Scope begin() {
        return begin(null);
    }

    /**
     * Opens a struct table whose indices are fixed in advance (null: first-use order).
     *
     * @param order the definitions, in index order, or null
     * @return the scope
     */
    public static Scope begin(List<byte[]> order) {
        Scope scope = new Scope(WRITING.get(), order);
        WRITING.set(scope);
        return scope;
    }

    /**
     * Closes a scope opened by {@link #begin}.
     *
     * @param scope the scope
     */
    public static void end(Scope scope) {
        WRITING.set(scope.outer);
    }

    /** The index of a definition in the running serialize call's table (added on first use). */
    static int indexOf(byte[] definition) {
        Scope scope = WRITING.get();
        if (scope == null) {
            throw new serreg.SerializationException("a struct is written only by SerializerRegistry.serialize (it needs"
                    + " the frame's struct table)");
        }
        if (definition == scope.last) {
            return scope.lastIndex;
        }
        StructSchema.DefinitionKey key = new StructSchema.DefinitionKey(definition);
        Integer found = scope.index.get(key);
        if (found == null && scope.used != null) {
            throw new serreg.SerializationException("the value changed while its canonical form was written: a struct"
                    + " definition met on the second pass was not met on the first");
        }
        if (found != null && scope.used != null && !scope.used[found]) {
            scope.used[found] = true;
            scope.usedCount++;
        }
        if (found == null) {
            if (scope.definitions.size() >= MAX_DEFINITIONS) {
                throw new serreg.SerializationException("a frame holds at most " + MAX_DEFINITIONS + " struct definitions");
            }
            found = scope.definitions.size();
            scope.index.put(key, found);
            scope.definitions.add(definition);
        }
        scope.last = definition;
        scope.lastIndex = found;
        return found;
    }

    /**
     * The in-band section with the table in front (docs/FORMAT.md section 10.1), or null when
     * no struct was written.
     *
     * @param scope the serialize call's scope
     * @param section the value's own in-band section (ClassIDHash + serializer in-band)
     * @param value the value (a top-level carrier writes its own class ID's hash)
     * @return the new in-band section, or null
     */
    public static byte[] wrap(Scope scope, ByteBuffer section, Object value) {
        if (scope.definitions.isEmpty()) {
            return null;
        }
        int count = scope.definitions.size();
        ByteBuffer h = count < 16 ? ByteBuffer.wrap(new byte[] {(byte) (0x90 | count)})
                : ByteBuffer.allocate(3).put((byte) 0xdc).putShort((short) count).flip();
        int size = 8 + h.remaining() + section.remaining();
        for (byte[] d : scope.definitions) {
            size += d.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        STRUCTS_HASH.writeTo(out);
        out.put(h);
        for (byte[] d : scope.definitions) {
            out.put(d);
        }
        int sectionAt = out.position();
        out.put(section.duplicate());
        if (value instanceof StructValue carrier) {
            out.position(sectionAt);
            ClassIdHash.of(carrier.classId()).writeTo(out);
        }
        return out.array();
    }

    static void push(List<Entry> table) {
        READING.get().push(table);
    }

    static void pop() {
        READING.get().pop();
    }

    /**
     * Reads one ext 1 payload (an instance array) from {@code in}, through the enclosing table.
     *
     * @param in a reader bounded to the payload
     * @return the instance: of the registered class, or a {@link StructValue}
     */
    public static Object readInstance(InBandReader in) {
        List<Entry> table = READING.get().peek();
        long at = in.offset();
        if (table == null) {
            throw new DeserializationException("a struct instance (msgpack ext 1) outside any struct table"
                    + " (serreg.structs)", at);
        }
        int n = in.readArrayHeader();
        if (n < 1) {
            throw new DeserializationException("a struct instance must be an array [definition index, field values...]", at);
        }
        long index = in.readLong();
        if (index < 0 || index >= table.size()) {
            throw new DeserializationException("struct instance names definition " + index + ", but the table holds "
                    + table.size(), at);
        }
        Entry entry = table.get((int) index);
        if (n != entry.fieldCount() + 1) {
            throw new DeserializationException("struct '" + entry.classId() + "': an instance array holds " + (n - 1)
                    + " field value(s), its definition declares " + entry.fieldCount(), at);
        }
        return entry.reader().read(in);
    }

    static void checkCount(long count, String what) {
        if (count > MAX_DEFINITIONS) {
            throw new LimitExceededException("the struct table declares " + count + " " + what + "; at most "
                    + MAX_DEFINITIONS, -1);
        }
    }
}
