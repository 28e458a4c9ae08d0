package serreg;

/**
 * What one deserialize call enforces while it decodes (docs/FORMAT.md sections 4.3 and 4.4): the
 * allow-list of an untrusted call, how many nested values are open, and the memory serializers
 * may still build beyond what the frame holds. Held per thread for the duration of the outermost
 * call, so serializers that call {@code deserialize} themselves share it (a nested call never
 * widens the outer call's trust). Not for use across threads.
 */
final class DecodeState {
    /** The thread this state is the deserialize call state of, or null for a detached one. */
    private final PerThread thread;
    /** The thread's short map keys (for the readers of this call). */
    final KeyCache keys;
    Limits limits;
    /** Size of the outermost frame (or in-band plus buffers of an in-process result). */
    long frameBytes;
    /** Sorted ClassIDHashes an untrusted call decodes, or null for a trusted call. */
    long[] allowed;
    /** {@code limits.memoryBudget(frameBytes)}, worked out at the first charge (-1 until then). */
    private long budget;
    /** {@code limits.maxDepth()}, read once per call. */
    private int maxDepth;
    private int depth;
    private long charged;

    /** A state of {@code thread} (null: detached), to {@link #reset} before a call. */
    DecodeState(PerThread thread, KeyCache keys) {
        this.thread = thread;
        this.keys = keys;
    }

    /** Readies this state for a new call (the thread's one state object serves each outermost call in turn). */
    private DecodeState reset(Limits limits, long frameBytes, long[] allowed) {
        this.limits = limits;
        this.maxDepth = limits.maxDepth();
        this.frameBytes = frameBytes;
        this.allowed = allowed;
        this.budget = -1;
        this.depth = 0;
        this.charged = 0;
        return this;
    }

    /** The state of the call running on this thread, or null outside deserialize. */
    static DecodeState current() {
        return PerThread.get().decoding;
    }

    /**
     * Starts a call: returns the state to release in a finally block, or null when a call is
     * already running on this thread (the nested call shares the outer state).
     */
    static DecodeState begin(Limits limits, long frameBytes, long[] allowed) {
        PerThread t = PerThread.get();
        if (t.decoding != null) {
            return null;
        }
        DecodeState state = t.spareState().reset(limits, frameBytes, allowed);
        t.decoding = state;
        return state;
    }

    /** A state for a reader used outside any deserialize call (not registered on the thread). */
    static DecodeState detached(Limits limits, long frameBytes, long[] allowed) {
        return new DecodeState(null, PerThread.get().keys).reset(limits, frameBytes, allowed);
    }

    /** The thread this state belongs to, or null for a detached state (whose readers are not pooled). */
    PerThread thread() {
        return thread;
    }

    /** Whether this call decodes the ClassIDHash (as u64 little-endian): always when trusted. */
    boolean allows(long hash) {
        return Trust.allows(allowed, hash);
    }

    /** Ends the call this state was started for by {@link #begin}. */
    void end() {
        thread.decoding = null;
    }

    /** Opens one nested value; {@code at} is the offset of its in-band section (for the error). */
    void enterValue(long at) {
        if (depth >= maxDepth) {
            throw new LimitExceededException("values are nested more than maxDepth=" + limits.maxDepth()
                    + " deep; raise it with Limits.withMaxDepth(...) if such values are expected", at);
        }
        depth++;
    }

    void exitValue() {
        depth--;
    }

    /** Nested values open (1 while the frame's top-level value is read, 0 outside any). */
    int depth() {
        return depth;
    }

    /**
     * Counts {@code bytes} of memory a serializer is about to build that the frame does not hold
     * (Arrow fields, nodes and batches, a validity bitmap Arrow Java makes for a column sent
     * without one) against the call's budget, {@code memoryAllowance + memoryPerByte x frame
     * size}: a small frame cannot make Java build a large value out of nothing.
     *
     * @throws LimitExceededException naming {@code what} when the budget is spent
     */
    void charge(long bytes, String what, long at) {
        if (budget < 0) {
            budget = limits.memoryBudget(frameBytes);
        }
        if (bytes < 0 || bytes > budget - charged) {
            throw new LimitExceededException("decoding would build more than " + budget + " bytes of " + what
                    + " and other charged values for a frame of " + frameBytes + " bytes (memoryAllowance + memoryPerByte"
                    + " x frame size); raise it with Limits.withMemoryPerByte(...) if such frames are expected", at);
        }
        charged += bytes;
    }
}
