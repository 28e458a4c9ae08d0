package serreg.structs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import serreg.InBandReader;
import serreg.LimitExceededException;
import serreg.StructSupport;
import serreg.wire.ClassIdHash;
import serreg.wire.FrameWriter;

/**
 * The struct table of the frame being written or read (docs/FORMAT.md section 10.1), held per
 * thread. A serialize call opens a table, whose {@link Scope} is made at the first struct
 * instance written (or at once when the order is fixed): each instance takes the index of its
 * definition, adding it on first use; {@link #wrap} then puts the table in front of the value's
 * section. Reading, the {@code serreg.structs} serializer pushes the table's readers and
 * every ext 1 inside is read by {@link #readInstance} (ext 2 by {@link #readInstances}), whose
 * checks are {@link DecodeScope}'s.
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
        /** The serialize call this table is of: the thread's count of open calls when it was made (see {@link ThreadTables#calls}). */
        final int level;
        /** Definition to index, by content (a carrier's definition is its own array) and by identity. */
        private Map<StructSchema.DefinitionKey, Integer> index;
        private IdentityHashMap<byte[], Integer> seen;
        private List<byte[]> definitions;
        /** Fixed order: which listed definitions were written (null in first-use order). */
        private final boolean[] used;
        private int usedCount;
        /** The last definition looked up and its index (a list repeats one). */
        private byte[] last;
        private int lastIndex;

        private Scope(Scope outer, int level, List<byte[]> order) {
            this.outer = outer;
            this.level = level;
            this.used = order == null ? null : new boolean[order.size()];
            if (order != null) {
                definitions = new ArrayList<>(order);
                index = new HashMap<>();
                seen = new IdentityHashMap<>(); // filled as definitions are met (each marked used then)
                for (int i = 0; i < order.size(); i++) {
                    index.put(new StructSchema.DefinitionKey(order.get(i)), i);
                }
            }
        }

        private void checkComplete() {
            if (used != null && usedCount != used.length) {
                throw new serreg.SerializationException("the value changed while its canonical form was written: a"
                        + " struct definition met on the first pass was not met on the second");
            }
        }

        @Override
        public byte[] wrap(ByteBuffer section, Object value) {
            checkComplete();
            return StructFrames.wrap(this, section, value);
        }

        @Override
        public ByteBuffer toFrame(ByteBuffer section, List<ByteBuffer> outOfBand, Object value, byte[] key) {
            checkComplete();
            return StructFrames.toFrame(this, section, outOfBand, value, key);
        }

        @Override
        public List<byte[]> definitions() {
            return definitions == null ? List.of() : java.util.Collections.unmodifiableList(definitions);
        }

        @Override
        public void close() {
            end(this);
        }

        private boolean isEmpty() {
            return definitions == null || definitions.isEmpty();
        }

        /** The table in front of the scope it was made inside, once its serialize call ends. */
        Scope outer() {
            return outer;
        }
    }

    /**
     * Opens the struct table of a serialize call on this thread (nested calls get their own).
     *
     * @return the scope, to pass to {@link #wrap} and {@link #end}
     */
    public static Scope begin() {
        return begin(null);
    }

    /**
     * Opens a struct table whose indices are fixed in advance (null: first-use order), made now
     * (a serialize call in first-use order is given a table made at its first struct instead).
     *
     * @param order the definitions, in index order, or null
     * @return the scope
     */
    public static Scope begin(List<byte[]> order) {
        ThreadTables tables = ThreadTables.current();
        Scope scope = new Scope(tables.writing, ++tables.calls, order);
        tables.writing = scope;
        return scope;
    }

    /**
     * Closes a scope opened by {@link #begin}.
     *
     * @param scope the scope
     */
    public static void end(Scope scope) {
        ThreadTables.current().endCall();
    }

    /** The index of a definition in the running serialize call's table (added on first use; the table made then). */
    static int indexOf(byte[] definition) {
        ThreadTables tables = ThreadTables.current();
        Scope scope = tables.writing;
        if (scope == null || scope.level != tables.calls) {
            if (tables.calls == 0) {
                throw new serreg.SerializationException("a struct is written only by SerializerRegistry.serialize (it needs"
                        + " the frame's struct table)");
            }
            scope = new Scope(scope, tables.calls, null);
            tables.writing = scope;
        }
        if (definition == scope.last) {
            return scope.lastIndex;
        }
        int found = indexIn(scope, definition);
        scope.last = definition;
        scope.lastIndex = found;
        return found;
    }

    private static int indexIn(Scope scope, byte[] definition) {
        if (scope.definitions == null) {
            scope.definitions = new ArrayList<>(4); // the first definition: no map needed yet
            scope.definitions.add(definition);
            return 0;
        }
        if (scope.index == null) { // a second definition in first-use order: maps from now on
            scope.index = new HashMap<>();
            scope.seen = new IdentityHashMap<>();
            for (int i = 0; i < scope.definitions.size(); i++) {
                scope.index.put(new StructSchema.DefinitionKey(scope.definitions.get(i)), i);
                scope.seen.put(scope.definitions.get(i), i);
            }
        }
        Integer found = scope.seen.get(definition);
        if (found != null) {
            return found;
        }
        StructSchema.DefinitionKey key = new StructSchema.DefinitionKey(definition);
        found = scope.index.get(key);
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
        if (scope.seen.size() < MAX_DEFINITIONS) {
            scope.seen.put(definition, found);
        }
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
        if (scope.isEmpty()) {
            return null;
        }
        int skip = value instanceof StructValue ? ClassIdHash.SIZE : 0;
        int headSize = headSize(scope, value);
        int restSize = section.remaining() - skip;
        byte[] out = new byte[headSize + restSize];
        writeHead(scope, value, out);
        section.get(section.position() + skip, out, headSize, restSize);
        return out;
    }

    /**
     * The contiguous frame of a value whose section holds structs, the table in front of its
     * section (written once into the frame's array), or null when no struct was written.
     *
     * @param scope the serialize call's scope
     * @param section the value's own in-band section (ClassIDHash + serializer in-band)
     * @param outOfBand its OOB buffers
     * @param value the value (a top-level carrier writes its own class ID's hash)
     * @param key the signing key, or null
     * @return the frame, or null
     */
    public static ByteBuffer toFrame(Scope scope, ByteBuffer section, List<ByteBuffer> outOfBand, Object value, byte[] key) {
        byte[] head = head(scope, value);
        return head == null ? null : FrameWriter.toFrame(head, rest(section, value), outOfBand, key);
    }

    /** The table's ClassIDHash and the table, then a top-level carrier's own ClassIDHash; null without structs. */
    private static byte[] head(Scope scope, Object value) {
        if (scope.isEmpty()) {
            return null;
        }
        byte[] out = new byte[headSize(scope, value)];
        writeHead(scope, value, out);
        return out;
    }

    /** The size of what {@link #head} holds. */
    private static int headSize(Scope scope, Object value) {
        List<byte[]> definitions = scope.definitions;
        int count = definitions.size();
        int size = ClassIdHash.SIZE + (count < 16 ? 1 : 3) + (value instanceof StructValue ? ClassIdHash.SIZE : 0);
        for (int i = 0; i < count; i++) {
            size += definitions.get(i).length;
        }
        return size;
    }

    /** Writes what {@link #head} holds at the start of {@code out} (written straight into the array: no buffer made). */
    private static void writeHead(Scope scope, Object value, byte[] out) {
        List<byte[]> definitions = scope.definitions;
        int count = definitions.size();
        int p = putHash(out, 0, STRUCTS_HASH.toLong());
        if (count < 16) {
            out[p++] = (byte) (0x90 | count);
        } else {
            out[p++] = (byte) 0xdc;
            out[p++] = (byte) (count >>> 8);
            out[p++] = (byte) count;
        }
        for (int i = 0; i < count; i++) {
            byte[] d = definitions.get(i);
            System.arraycopy(d, 0, out, p, d.length);
            p += d.length;
        }
        if (value instanceof StructValue c) {
            putHash(out, p, ClassIdHash.of(c.classId()).toLong());
        }
    }

    /** Writes a ClassIDHash (8 bytes, little-endian) at {@code at}; returns the index after it. */
    private static int putHash(byte[] out, int at, long hash) {
        for (int i = 0; i < ClassIdHash.SIZE; i++) {
            out[at + i] = (byte) (hash >>> (8 * i));
        }
        return at + ClassIdHash.SIZE;
    }

    /** The section after what {@link #head} holds of it: all of it, or a carrier's without its ClassIDHash. */
    private static ByteBuffer rest(ByteBuffer section, Object value) {
        ByteBuffer rest = section.duplicate();
        if (value instanceof StructValue) {
            rest.position(rest.position() + ClassIdHash.SIZE);
        }
        return rest;
    }

    static void push(DecodeScope.Entry[] table) {
        ThreadTables.current().push(table);
    }

    static void pop() {
        ThreadTables.current().pop();
    }

    /**
     * Reads one ext 1 payload (an instance array) from {@code in}, through the enclosing table
     * (the checks: {@link DecodeScope}).
     *
     * @param in a reader bounded to the payload
     * @return the instance: of the registered class, or a {@link StructValue}
     */
    public static Object readInstance(InBandReader in) {
        return DecodeScope.readInstance(in);
    }

    /**
     * Reads one ext 2 payload (docs/FORMAT.md section 10.3) from {@code in}, through the
     * enclosing table: {@code [index, count, column_0, ...]}, every header checked before the
     * columns are read (the checks: {@link DecodeScope}).
     *
     * @param in a reader bounded to the payload
     * @return the instances
     */
    public static List<Object> readInstances(InBandReader in) {
        return DecodeScope.readInstances(in);
    }

    static void checkCount(long count, String what) {
        if (count > MAX_DEFINITIONS) {
            throw new LimitExceededException("the struct table declares " + count + " " + what + "; at most "
                    + MAX_DEFINITIONS, -1);
        }
    }
}
