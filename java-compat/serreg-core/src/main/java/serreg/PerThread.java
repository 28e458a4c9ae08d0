package serreg;

/**
 * What one thread keeps across serialize and deserialize calls, found with one
 * {@link ThreadLocal} lookup per call: the state of the deserialize call running on the thread
 * (and the state object the next one reuses), the cache of short map keys, the pooled writer and
 * the pooled reader.
 * A call finds it once and the parts it hands it to reach it by reference (a state ends its call,
 * a pooled writer goes back, without another lookup). Package-private; each object is used by its
 * own thread only.
 */
final class PerThread {
    private static final ThreadLocal<PerThread> CURRENT = ThreadLocal.withInitial(PerThread::new);

    /** Short ASCII map keys read on this thread. */
    final KeyCache keys = new KeyCache();
    /** The state of the deserialize call running on this thread, or null outside one. */
    DecodeState decoding;
    /** The state object the next outermost deserialize call on this thread starts with. */
    private DecodeState spare;
    /** The writer the next serialize call on this thread takes, or null while one is using it. */
    InBandWriter writer;
    /** The reader the next in-band document read in place on this thread takes, or null while one is using it. */
    InBandReader reader;

    private PerThread() {
    }

    /** This thread's. */
    static PerThread get() {
        return CURRENT.get();
    }

    /** The state object an outermost deserialize call starts with (reset by the caller). */
    DecodeState spareState() {
        DecodeState s = spare;
        return s != null ? s : (spare = new DecodeState(this, keys));
    }
}
