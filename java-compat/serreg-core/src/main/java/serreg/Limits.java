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
 *   <li>{@code memoryPerByte} and {@code memoryAllowance}: what serializers may build for one frame
 *       of S bytes beyond the frame itself is at most {@code memoryAllowance + memoryPerByte * S}
 *       bytes (16 and 32 MiB, as Python's {@code memory_per_byte} and {@code memory_allowance}).
 *       What is charged (Arrow fields, nodes, batches and the validity bitmaps Arrow Java makes
 *       for columns that carry none) counts before it is built; {@code Long.MAX_VALUE} per byte
 *       switches the budget off.</li>
 * </ul>
 * A bound is switched off with {@link Long#MAX_VALUE} / {@link Integer#MAX_VALUE}. Arrays and
 * maps are decoded without recursion; nested values recurse, about 2 KiB of thread stack per
 * level, so the default {@code maxDepth} keeps a decode within 256 KiB of stack (the default
 * thread stack of a 64-bit JVM is 1 MiB).
 */
public record Limits(long maxFrameSize, int maxBuffers, int maxDepth, int maxMsgpackNesting, int maxDecimalDigits,
        long memoryPerByte, long memoryAllowance) {
    public static final Limits DEFAULT = new Limits(4L << 30, 100_000, 100, 1024, 4300, 16, 32L << 20);

    public Limits {
        if (maxFrameSize < 0 || maxBuffers < 0 || maxDepth < 0 || maxMsgpackNesting < 0 || maxDecimalDigits < 0
                || memoryPerByte < 0 || memoryAllowance < 0) {
            throw new IllegalArgumentException("limits are non-negative: " + this);
        }
    }

    /** The five limits of earlier versions, with the default memory budget. */
    public Limits(long maxFrameSize, int maxBuffers, int maxDepth, int maxMsgpackNesting, int maxDecimalDigits) {
        this(maxFrameSize, maxBuffers, maxDepth, maxMsgpackNesting, maxDecimalDigits, DEFAULT_MEMORY_PER_BYTE,
                DEFAULT_MEMORY_ALLOWANCE);
    }

    private static final long DEFAULT_MEMORY_PER_BYTE = 16;
    private static final long DEFAULT_MEMORY_ALLOWANCE = 32L << 20;

    public Limits withMaxFrameSize(long value) {
        return new Limits(value, maxBuffers, maxDepth, maxMsgpackNesting, maxDecimalDigits, memoryPerByte, memoryAllowance);
    }

    public Limits withMaxBuffers(int value) {
        return new Limits(maxFrameSize, value, maxDepth, maxMsgpackNesting, maxDecimalDigits, memoryPerByte, memoryAllowance);
    }

    public Limits withMaxDepth(int value) {
        return new Limits(maxFrameSize, maxBuffers, value, maxMsgpackNesting, maxDecimalDigits, memoryPerByte, memoryAllowance);
    }

    public Limits withMaxMsgpackNesting(int value) {
        return new Limits(maxFrameSize, maxBuffers, maxDepth, value, maxDecimalDigits, memoryPerByte, memoryAllowance);
    }

    public Limits withMaxDecimalDigits(int value) {
        return new Limits(maxFrameSize, maxBuffers, maxDepth, maxMsgpackNesting, value, memoryPerByte, memoryAllowance);
    }

    public Limits withMemoryPerByte(long value) {
        return new Limits(maxFrameSize, maxBuffers, maxDepth, maxMsgpackNesting, maxDecimalDigits, value, memoryAllowance);
    }

    public Limits withMemoryAllowance(long value) {
        return new Limits(maxFrameSize, maxBuffers, maxDepth, maxMsgpackNesting, maxDecimalDigits, memoryPerByte, value);
    }

    /** What serializers may build for a frame of {@code frameBytes} bytes (saturating; Long.MAX_VALUE when off). */
    long memoryBudget(long frameBytes) {
        if (memoryPerByte == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long perByte;
        try {
            perByte = Math.multiplyExact(memoryPerByte, Math.max(frameBytes, 0));
            return Math.addExact(perByte, memoryAllowance);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
