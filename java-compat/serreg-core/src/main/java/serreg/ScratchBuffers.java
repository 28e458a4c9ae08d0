package serreg;

/**
 * One scratch array per thread for the top-level in-band writer, so serializing a value does not
 * allocate and grow a new array each time. A writer takes the array (a nested or concurrent
 * serialize call on the same thread then gets a fresh one) and gives it back when done; an array
 * grown past {@link #MAX_KEPT} is dropped rather than kept, so one large value does not pin its
 * memory to the thread. Package-private.
 */
final class ScratchBuffers {
    static final int INITIAL = 1024;
    static final int MAX_KEPT = 1 << 20;

    private static final ThreadLocal<byte[][]> SLOT = ThreadLocal.withInitial(() -> new byte[1][]);

    private ScratchBuffers() {
    }

    /** This thread's scratch array (removed from the slot until given back), or a new one. */
    static byte[] take() {
        byte[][] slot = SLOT.get();
        byte[] b = slot[0];
        if (b == null) {
            return new byte[INITIAL];
        }
        slot[0] = null;
        return b;
    }

    /** Gives an array back to this thread's slot, unless it is too large to keep. */
    static void give(byte[] b) {
        if (b != null && b.length <= MAX_KEPT) {
            SLOT.get()[0] = b;
        }
    }
}
