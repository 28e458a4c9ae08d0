package serreg.arrow;

import java.util.Arrays;

/**
 * Which slots of a source vector a canonical node holds, in order: runs of consecutive source
 * slots (docs/FORMAT.md section 9.5). A top-level column is one run; the child of a list holds
 * the runs its valid slots cover. Package-private, for {@link ArrowCanonical}.
 */
final class CanonicalSlots {
    long[] starts = new long[4];
    long[] lengths = new long[4];
    int runs;
    long count;
    long end;  // one past the highest source slot

    static CanonicalSlots range(long start, long length) {
        CanonicalSlots s = new CanonicalSlots();
        s.add(start, length);
        return s;
    }

    /** Appends source slots start..start+length-1, merging with the last run when they touch. */
    void add(long start, long length) {
        if (length == 0) {
            return;
        }
        count += length;
        end = Math.max(end, start + length);
        if (runs > 0 && starts[runs - 1] + lengths[runs - 1] == start) {
            lengths[runs - 1] += length;
            return;
        }
        if (runs == starts.length) {
            starts = Arrays.copyOf(starts, runs * 2);
            lengths = Arrays.copyOf(lengths, runs * 2);
        }
        starts[runs] = start;
        lengths[runs] = length;
        runs++;
    }

    int count() {
        return Math.toIntExact(count);
    }

    /** The slots of a child holding {@code size} consecutive slots per slot of this one. */
    CanonicalSlots times(long size) {
        CanonicalSlots s = new CanonicalSlots();
        for (int r = 0; r < runs; r++) {
            s.add(starts[r] * size, lengths[r] * size);
        }
        return s;
    }

    /** Calls {@code visit(outIndex, sourceIndex)} for every slot, in order. */
    void forEach(CanonicalSlots.Visitor visit) {
        int out = 0;
        for (int r = 0; r < runs; r++) {
            for (long j = starts[r]; j < starts[r] + lengths[r]; j++) {
                visit.slot(out++, Math.toIntExact(j));
            }
        }
    }

    /** What {@link #forEach} calls for each slot: its index in the node and in the source vector. */
    @FunctionalInterface
    interface Visitor {
        void slot(int out, int source);
    }
}
