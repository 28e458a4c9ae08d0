package serreg.wire;

/**
 * Where everything sits in a contiguous frame (docs/FORMAT.md section 4): the in-band section
 * right after the OOB table, then each OOB buffer at the next 64-byte aligned offset.
 */
public record FrameLayout(long inBandOffset, long inBandLength, long[] bufferOffsets, long[] bufferLengths, long totalLength) {
    /** Bytes of the fixed header. */
    public static final int HEADER_SIZE = 32;
    /** Bytes of one OOB table entry (offset, length). */
    public static final int TABLE_ENTRY_SIZE = 16;
    /** Every OOB buffer starts at a multiple of this. */
    public static final int ALIGNMENT = 64;

    /** {@code x} rounded up to a multiple of {@link #ALIGNMENT}. */
    public static long align64(long x) {
        return (x + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** The only layout a writer may produce for these lengths. */
    public static FrameLayout of(long inBandLength, long[] bufferLengths) {
        int k = bufferLengths.length;
        long inBandOffset = HEADER_SIZE + (long) TABLE_ENTRY_SIZE * k;
        long end = inBandOffset + inBandLength;
        long[] offsets = new long[k];
        for (int i = 0; i < k; i++) {
            offsets[i] = align64(end);
            end = offsets[i] + bufferLengths[i];
        }
        return new FrameLayout(inBandOffset, inBandLength, offsets, bufferLengths.clone(), end);
    }
}
