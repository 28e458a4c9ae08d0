package serreg;

/**
 * One {@link InBandWriter} per thread (kept in {@link PerThread}) for the top-level serialize
 * call, so serializing a value neither allocates a writer and its class cache nor grows a new
 * array each time. A call takes the writer (a nested or concurrent serialize call on the same
 * thread then gets a new one) and gives it back when done; a writer whose array grew past
 * {@link #MAX_KEPT} is dropped rather than kept, so one large value does not pin its memory to
 * the thread. A writer of another registry is replaced by one for the caller's, on the same
 * array. Package-private.
 */
final class WriterPool {
    static final int INITIAL = 1024;
    static final int MAX_KEPT = 1 << 20;

    private WriterPool() {
    }

    /** This thread's writer for {@code registry} (removed from the thread until given back), or a new one. */
    static InBandWriter take(SerializerRegistry registry) {
        PerThread thread = PerThread.get();
        InBandWriter w = thread.writer;
        if (w == null) {
            return new InBandWriter(registry, new byte[INITIAL], thread);
        }
        thread.writer = null;
        if (w.registry() != registry) {
            return new InBandWriter(registry, w.array(), thread);
        }
        w.reuse();
        return w;
    }

    /** Gives an emptied writer back to {@code thread} (the one it was taken on), unless its array is too large to keep. */
    static void give(InBandWriter w, PerThread thread) {
        if (w.array().length <= MAX_KEPT) {
            thread.writer = w;
        }
    }
}
