package serreg;

/**
 * Where everything sits in a contiguous frame (docs/FORMAT.md section 4): the in-band section
 * right after the OOB table, then each OOB buffer at the next 64-byte aligned offset.
 */
record FrameLayout(long inBandOffset, long inBandLength, long[] bufferOffsets, long[] bufferLengths, long totalLength) {
    static final int HEADER_SIZE = 32;
    static final int TABLE_ENTRY_SIZE = 16;
    static final int ALIGNMENT = 64;

    static long align64(long x) {
        return (x + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** The only layout a writer may produce for these lengths. */
    static FrameLayout of(long inBandLength, long[] bufferLengths) {
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
