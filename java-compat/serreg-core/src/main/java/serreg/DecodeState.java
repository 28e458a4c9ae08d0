package serreg;

/**
 * What one deserialize call enforces while it decodes: how many nested values are open
 * (docs/FORMAT.md section 4.3), and how many bytes Java may allocate beyond what the frame holds. Held per thread for the duration of the outermost call, so serializers
 * that call {@code deserialize} themselves share it. Not for use across threads.
 */
final class DecodeState {
    private static final ThreadLocal<DecodeState> CURRENT = new ThreadLocal<>();

    final Limits limits;
    /** Size of the outermost frame (or in-band plus buffers of an in-process result). */
    final long frameBytes;
    private int depth;
    private long extraAllocation;

    private DecodeState(Limits limits, long frameBytes) {
        this.limits = limits;
        this.frameBytes = frameBytes;
    }

    /** The state of the call running on this thread, or null outside deserialize. */
    static DecodeState current() {
        return CURRENT.get();
    }

    /**
     * Starts a call: returns the state to release in a finally block, or null when a call is
     * already running on this thread (the nested call shares the outer state).
     */
    static DecodeState begin(Limits limits, long frameBytes) {
        if (CURRENT.get() != null) {
            return null;
        }
        DecodeState state = new DecodeState(limits, frameBytes);
        CURRENT.set(state);
        return state;
    }

    /** A state for a reader used outside any deserialize call (not registered on the thread). */
    static DecodeState detached(Limits limits, long frameBytes) {
        return new DecodeState(limits, frameBytes);
    }

    void end() {
        CURRENT.set(null); // keeps the thread's map entry: the next call sets it without allocating one
    }

    /** Opens one nested value; {@code at} is the offset of its in-band section (for the error). */
    void enterValue(long at) {
        if (depth >= limits.maxDepth()) {
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

    /** What a frame may make Java allocate beyond its own size, however small the frame (see below). */
    static final long EXTRA_ALLOCATION_FLOOR = 1 << 20;

    /**
     * Accounts for memory a serializer must allocate that the frame does not hold (Arrow Java
     * builds a validity bitmap for a struct sent without one): all of it together may not exceed
     * the frame's own size plus {@link #EXTRA_ALLOCATION_FLOOR}, so a small frame cannot make
     * Java allocate a large amount, while a struct of nulls of a few million rows, which Python
     * sends in a few hundred bytes, still reads.
     */
    void allocateBeyondFrame(long bytes, String what, long at) {
        long budget = frameBytes + EXTRA_ALLOCATION_FLOOR;
        if (bytes > budget - extraAllocation) {
            throw new LimitExceededException(what + " would make Java allocate " + bytes + " bytes that the frame does"
                    + " not hold; with what it allocated before, that is more than the frame's own " + frameBytes
                    + " bytes plus 1 MiB", at);
        }
        extraAllocation += bytes;
    }
}
