package serreg;

import java.nio.ByteBuffer;
import java.util.Iterator;

/**
 * One {@link InBandReader} per thread (kept in {@link PerThread}) for the in-band documents the
 * decoder reads in place, so a deserialize call allocates neither a reader nor its container and
 * ext values readers. The twin of {@link WriterPool}: a document takes the thread's reader (one
 * read while it is in use, by a serializer calling {@code deserialize} again, gets a new one) and
 * gives it back when done, normally or not; a reader given back holds no reference to the frame
 * or the call, and its caches of the last call are cleared when it is taken again. A detached
 * state (a reader used outside any deserialize call) is never pooled. Package-private.
 */
final class ReaderPool {
    private ReaderPool() {
    }

    /**
     * A reader of the {@code length} bytes at index {@code from} of {@code inBand} within the call
     * {@code state}: its thread's pooled one (removed from the thread until {@link InBandReader#release}), or a new one.
     */
    static InBandReader take(ValueDecoder decoder, ByteBuffer inBand, int from, int length, Iterator<ByteBuffer> outOfBand,
            DecodeState state) {
        PerThread thread = state.thread();
        InBandReader r = thread == null ? null : thread.reader;
        if (r == null) {
            return new InBandReader(decoder, inBand, from, length, outOfBand, state);
        }
        thread.reader = null;
        r.reuse(decoder, inBand, from, length, outOfBand, state);
        return r;
    }

    /** Gives a released reader back to {@code thread} (the one it was made on), unless the thread already has one. */
    static void give(InBandReader r, PerThread thread) {
        if (thread.reader == null) {
            thread.reader = r;
        }
    }
}
