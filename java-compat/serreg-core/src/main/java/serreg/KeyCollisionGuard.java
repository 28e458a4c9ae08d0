package serreg;

import java.util.HashMap;
import java.util.Map;

/**
 * Puts decoded keys into a map or set, refusing keys that would make that expensive.
 *
 * <p>Keys chosen to collide. Keys with equal
 * {@code hashCode()} share a bucket, and a HashMap compares a new key with those already there;
 * a frame of n keys that all collide would take time quadratic in n to build (a tuple of small
 * ints is enough to make such keys). The guard counts those comparisons as the keys arrive and
 * stops when they exceed {@value #PER_KEY} per declared key, long before the work is noticeable,
 * while ordinary keys (a few collisions here and there) never come near it. Mirrors the check
 * Python makes in untrusted mode (docs/FORMAT.md section 4.3).
 *
 * <p>Keys nested too deeply to hash. A decoded key may be a list or tuple nested as deep as the
 * limits allow (100 nested values of 1,024 arrays each), and Java hashes and compares such a key
 * by recursion: a key the thread's stack cannot hash is refused with a LimitExceededException
 * instead of a StackOverflowError. Not thread-safe.
 */
public final class KeyCollisionGuard {
    /** Comparisons allowed per declared key; a container of up to this many keys is never checked. */
    public static final int PER_KEY = 64;

    private final long budget;
    private final String what;
    private final long at;
    private final Map<Integer, int[]> counts;
    private long comparisons;

    /**
     * @param declared the number of keys the container declares
     * @param what names the container in the error ("map", "set")
     * @param at byte offset of the container, for the error
     */
    public KeyCollisionGuard(int declared, String what, long at) {
        this.budget = (long) PER_KEY * declared;
        this.what = what;
        this.at = at;
        this.counts = declared > PER_KEY ? new HashMap<>() : null;
    }

    /** Counts the key, then puts the entry. */
    public <K, V> void put(Map<K, V> map, K key, V value) {
        try {
            admit(key);
            map.put(key, value);
        } catch (StackOverflowError e) {
            throw tooDeep();
        }
    }

    /** Counts the item, then adds it. */
    public <T> void add(java.util.Set<T> set, T item) {
        try {
            admit(item);
            set.add(item);
        } catch (StackOverflowError e) {
            throw tooDeep();
        }
    }

    /**
     * Puts an entry of a container of at most {@value #PER_KEY} declared keys (which is never
     * counted), refusing a key too deep to hash as {@link #put} does, without a guard object.
     */
    public static <K, V> void putFew(Map<K, V> map, K key, V value, String what, long at) {
        try {
            map.put(key, value);
        } catch (StackOverflowError e) {
            throw tooDeep(what, at);
        }
    }

    private LimitExceededException tooDeep() {
        return tooDeep(what, at);
    }

    private static LimitExceededException tooDeep(String what, long at) {
        // Hashing and comparing only read the key: nothing is left half-changed (the map is dropped).
        return new LimitExceededException("a key of this " + what + " is nested too deeply for Java to hash it on this"
                + " thread's stack; lower Limits.maxDepth / maxMsgpackNesting or decode on a thread with a larger stack", at);
    }

    private void admit(Object key) {
        if (counts == null) {
            return;
        }
        int[] count = counts.computeIfAbsent(key == null ? 0 : key.hashCode(), h -> new int[1]);
        comparisons += count[0]++;
        if (comparisons > budget) {
            throw new LimitExceededException("a " + what + " whose keys share Java hash codes so often that building it"
                    + " would take quadratic time (" + count[0] + " keys with hash code " + (key == null ? 0 : key.hashCode())
                    + "); refusing it", at);
        }
    }
}
