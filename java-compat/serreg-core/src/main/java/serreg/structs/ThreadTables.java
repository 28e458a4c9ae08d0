package serreg.structs;

import java.util.ArrayDeque;

/**
 * The struct tables open on one thread: the scope of the serialize call writing, and the tables
 * of the frames being read (the innermost, and those it hides). Every struct instance written
 * or read needs its thread's tables, so they are found through a small array indexed by the
 * thread's ID, the thread checked by identity, before the {@link ThreadLocal} (whose hashed,
 * weakly referenced lookup cost about as much as the rest of reading a three-field instance).
 * Threads whose IDs share a slot take turns in it and are never confused: a miss only costs the
 * ThreadLocal lookup.
 */
final class ThreadTables {
    private static final int SLOTS = 64;
    private static final ThreadTables[] RECENT = new ThreadTables[SLOTS];
    private static final ThreadLocal<ThreadTables> ALL = ThreadLocal.withInitial(ThreadTables::new);

    private final Thread owner = Thread.currentThread();
    /**
     * The innermost struct table made on this thread, or null: the running serialize call's when
     * its {@link StructFrames.Scope#level} is {@link #calls}, else an enclosing call's (the
     * running one has met no struct yet).
     */
    StructFrames.Scope writing;
    /** Serialize calls open on this thread (nested calls included): each has a table, made at its first struct. */
    int calls;
    /** The table every serialize call on this thread without a fixed order is given (see {@link LazyTable}). */
    final LazyTable lazy = new LazyTable(this);
    /** The table of the innermost frame being read, or null. */
    DecodeScope.Entry[] reading;
    private final ArrayDeque<DecodeScope.Entry[]> hidden = new ArrayDeque<>();
    /** Arrays of at most this many elements are kept for the next ext 2 written or read on this thread. */
    static final int SCRATCH_MAX = 1 << 16;
    /** The bytes of the ext 2 column being written (see {@link ColumnCodec}). */
    byte[] columnBytes;
    /** Column arrays free for the next ext 2 (taken and given back around each one: see {@link ColumnArrays}). */
    ColumnArrays columnArrays;

    private ThreadTables() {
    }

    /** This thread's tables. */
    static ThreadTables current() {
        Thread thread = Thread.currentThread();
        int slot = (int) thread.getId() & (SLOTS - 1);
        ThreadTables tables = RECENT[slot];
        if (tables == null || tables.owner != thread) {
            tables = ALL.get();
            RECENT[slot] = tables;
        }
        return tables;
    }

    /** Ends the innermost serialize call: its table, if one was made, is dropped. */
    void endCall() {
        StructFrames.Scope scope = writing;
        if (scope != null && scope.level == calls) {
            writing = scope.outer();
        }
        calls--;
    }

    /** The table of the running serialize call, or null when it has written no struct (or none is running). */
    StructFrames.Scope running() {
        StructFrames.Scope scope = writing;
        return scope != null && scope.level == calls && calls > 0 ? scope : null;
    }

    /** Makes {@code table} the innermost table being read. */
    void push(DecodeScope.Entry[] table) {
        if (reading != null) {
            hidden.push(reading);
        }
        reading = table;
    }

    /** Back to the table the innermost one hid (or none). */
    void pop() {
        reading = hidden.poll();
    }
}
