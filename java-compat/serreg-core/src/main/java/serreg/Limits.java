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
 *   <li>{@code maxMsgpackNesting}: most msgpack arrays and maps open at once inside one in-band
 *       document (1,024, msgpack-python's limit, which Python uses).</li>
 *   <li>{@code maxDecimalDigits}: most digits in one {@code decimal} (4,300, CPython's default
 *       limit for int/str conversion, set for the same reason). Java only: BigDecimal parses text
 *       in time quadratic in its digits (a million digits take seconds), where Python's decimal
 *       module is linear.</li>
 * </ul>
 * A bound is switched off with {@link Long#MAX_VALUE} / {@link Integer#MAX_VALUE}. Arrays and
 * maps are decoded without recursion; nested values recurse, about 2 KiB of thread stack per
 * level, so the default {@code maxDepth} keeps a decode within 256 KiB of stack (the default
 * thread stack of a 64-bit JVM is 1 MiB).
 */
public record Limits(long maxFrameSize, int maxBuffers, int maxDepth, int maxMsgpackNesting, int maxDecimalDigits) {
    public static final Limits DEFAULT = new Limits(4L << 30, 100_000, 100, 1024, 4300);

    public Limits {
        if (maxFrameSize < 0 || maxBuffers < 0 || maxDepth < 0 || maxMsgpackNesting < 0 || maxDecimalDigits < 0) {
            throw new IllegalArgumentException("limits are non-negative: " + this);
        }
    }

    public Limits withMaxFrameSize(long value) {
        return new Limits(value, maxBuffers, maxDepth, maxMsgpackNesting, maxDecimalDigits);
    }

    public Limits withMaxBuffers(int value) {
        return new Limits(maxFrameSize, value, maxDepth, maxMsgpackNesting, maxDecimalDigits);
    }

    public Limits withMaxDepth(int value) {
        return new Limits(maxFrameSize, maxBuffers, value, maxMsgpackNesting, maxDecimalDigits);
    }

    public Limits withMaxMsgpackNesting(int value) {
        return new Limits(maxFrameSize, maxBuffers, maxDepth, value, maxDecimalDigits);
    }

    public Limits withMaxDecimalDigits(int value) {
        return new Limits(maxFrameSize, maxBuffers, maxDepth, maxMsgpackNesting, value);
    }
}
