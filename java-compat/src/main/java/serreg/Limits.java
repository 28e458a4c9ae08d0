package serreg;

/**
 * Bounds on what one {@code deserialize} call accepts, so hostile bytes cannot exhaust a process
 * (docs/FORMAT.md section 4.3). Immutable; the defaults are {@link #DEFAULT}. Set them for a
 * whole registry with {@link SerializerRegistry#setLimits} or pass them to one call.
 *
 * <ul>
 *   <li>{@code maxFrameSize}: largest frame accepted, in bytes (4 GiB; a Java frame is one
 *       ByteBuffer, so 2 GiB in practice). Checked against the header's total length before
 *       anything else is read.</li>
 *   <li>{@code maxBuffers}: most out-of-band buffers in one frame (100,000), checked before the
 *       OOB table is read.</li>
 *   <li>{@code maxDepth}: most nested values (ext 0 levels plus nested deserialize calls) open at
 *       once (100).</li>
 *   <li>{@code maxMsgpackNesting}: most msgpack arrays and maps open at once, counted across the
 *       whole frame (1,024; Python counts per in-band document). Java decodes by recursion, so
 *       this bound, together with {@code maxDepth}, is what keeps a hostile frame from
 *       overflowing the thread's stack.</li>
 * </ul>
 * A bound is switched off with {@link Long#MAX_VALUE} / {@link Integer#MAX_VALUE}; switching off
 * the last two exposes the stack to deep frames.
 */
public record Limits(long maxFrameSize, int maxBuffers, int maxDepth, int maxMsgpackNesting) {
    public static final Limits DEFAULT = new Limits(4L << 30, 100_000, 100, 1024);

    public Limits {
        if (maxFrameSize < 0 || maxBuffers < 0 || maxDepth < 0 || maxMsgpackNesting < 0) {
            throw new IllegalArgumentException("limits are non-negative: " + this);
        }
    }

    public Limits withMaxFrameSize(long value) {
        return new Limits(value, maxBuffers, maxDepth, maxMsgpackNesting);
    }

    public Limits withMaxBuffers(int value) {
        return new Limits(maxFrameSize, value, maxDepth, maxMsgpackNesting);
    }

    public Limits withMaxDepth(int value) {
        return new Limits(maxFrameSize, maxBuffers, value, maxMsgpackNesting);
    }

    public Limits withMaxMsgpackNesting(int value) {
        return new Limits(maxFrameSize, maxBuffers, maxDepth, value);
    }
}
