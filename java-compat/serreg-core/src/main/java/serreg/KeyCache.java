package serreg;

/**
 * Recent short ASCII map keys, by their bytes: a list of records repeats the same few keys in
 * every record, and a key found here costs neither a String nor a copy of its bytes (and its
 * hash code, which the map asks for next, is already computed). One per thread ({@link PerThread}),
 * kept across deserialize calls.
 *
 * <p>Safe under hostile input: a bounded table ({@value #SLOTS} keys of at most 31 bytes, a few
 * KiB), direct-mapped on the keys' {@code String.hashCode}; a key is returned only after its
 * every character is compared with the bytes, so a collision (chosen or not) costs one new
 * String, never a wrong key, and keys that all miss cost one pass over their bytes more than
 * without the cache. Package-private; not thread-safe (hence one per thread).
 */
final class KeyCache {
    private static final int SLOTS = 256;
    /** Longest key cached: a fixstr's. */
    static final int MAX_LENGTH = 31;
    private final String[] keys = new String[SLOTS];

    /** A cache for one thread ({@link PerThread} holds it). */
    KeyCache() {
    }

    /**
     * The text of the {@code n <= 31} bytes at {@code b[from]} if they are all ASCII (from the
     * cache, or new and then cached), else null.
     */
    @SuppressWarnings("deprecation") // String(byte[], int hibyte, ...): the shortest way to a Latin-1 string
    String ascii(byte[] b, int from, int n) {
        int h = 0;
        int high = 0;
        for (int i = from, end = from + n; i < end; i++) {
            int c = b[i];
            high |= c;
            h = 31 * h + c; // String.hashCode of the Latin-1 text when every byte is ASCII
        }
        if (high < 0) {
            return null;
        }
        int slot = (h ^ (h >>> 8)) & (SLOTS - 1);
        String known = keys[slot];
        if (known != null && known.hashCode() == h && same(known, b, from, n)) {
            return known;
        }
        String s = new String(b, 0, from, n);
        keys[slot] = s;
        return s;
    }

    private static boolean same(String s, byte[] b, int from, int n) {
        if (s.length() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) != b[from + i]) {
                return false;
            }
        }
        return true;
    }
}
