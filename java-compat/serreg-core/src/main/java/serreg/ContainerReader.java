package serreg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads msgpack arrays and maps for an {@link InBandReader} into {@code ArrayList} and
 * {@code LinkedHashMap}, without recursion: msgpack nesting costs no thread stack (it is bounded
 * by {@link Limits#maxMsgpackNesting()}); only nested values (ext 0, read by the reader) recurse,
 * at most {@link Limits#maxDepth()} deep. Short ASCII map keys come from the thread's
 * {@link KeyCache} (the call's state hands it over). Containers are pre-sized from their declared
 * count (which the header reads checked against the bytes left) no further than
 * {@link InBandReader#MAX_PRESIZE}, so memory
 * grows only with the items actually present. Map keys go in through {@link KeyCollisionGuard}.
 * Package-private; one per reader, not thread-safe.
 */
final class ContainerReader {
    private final InBandReader in;
    private final KeyCache keys;
    /** The reader's ext values reader (fetched at the first ext value). */
    private NestedReader nested;
    /** Arrays and maps open in the document being read (each nested in-band counts from 0). */
    private int nesting;
    /** The stack of arrays and maps being filled, shared by nested documents read in place. */
    private ContainerStack open;

    ContainerReader(InBandReader in, KeyCache keys) {
        this.in = in;
        this.keys = keys;
    }

    /** Readies this reader for its reader's next call (a call that failed may have left containers open). */
    void reset() {
        nesting = 0;
        if (open != null) {
            open.truncate(0);
        }
    }

    /** Starts a nested document read in place: its nesting counts from 0; returns the count to restore. */
    int enterDocument() {
        int saved = nesting;
        nesting = 0;
        return saved;
    }

    void exitDocument(int saved) {
        nesting = saved;
    }

    /** A map key or any other value but an array or map, whose first byte is {@code b}. */
    private Object readKey(int b) {
        return b >= 0xa0 && b <= 0xbf ? in.readShortString(b, keys) : in.readScalar(b);
    }

    /** A short ASCII str from the cache, or any value (for {@link InBandReader#readMapKey}). */
    Object readMapKey(int b) {
        return b >= 0xa0 && b <= 0xbf ? in.readShortString(b, keys) : in.readValue();
    }

    /**
     * Reads the array or map at the reader's position. One whose items are all scalars or
     * nested values (ext 0) is filled directly; at the first item that is itself an array or
     * map, the container, as far as it is filled, goes on an explicit stack of open containers,
     * and the rest is read without recursion. One method calling the nested values' reader
     * directly, so a level of nested values costs few stack frames.
     */
    Object read() {
        long at = in.offset();
        boolean map = InBandLayout.isMap(in.peek());
        int n = map ? in.readMapHeader() : in.readArrayHeader();
        enterContainer(at);
        Object container;
        KeyCollisionGuard guard = null;
        int left = n;
        Object pendingKey = ContainerStack.NO_KEY;
        boolean handedOver = false;
        try {
            flat: {
                if (map) {
                    Map<Object, Object> m = newMap(n);
                    container = m;
                    guard = n > KeyCollisionGuard.PER_KEY ? new KeyCollisionGuard(n, "map", at) : null;
                    for (; left > 0; left--) {
                        int b = in.peek();
                        if (InBandLayout.isContainer(b)) {
                            break flat;
                        }
                        Object key = InBandLayout.isExt(b) ? nested().read() : readKey(b);
                        b = in.peek();
                        if (InBandLayout.isContainer(b)) {
                            pendingKey = key;
                            break flat;
                        }
                        Object value = InBandLayout.isExt(b) ? nested().read() : in.readScalar(b);
                        if (guard != null) {
                            guard.put(m, key, value);
                        } else {
                            KeyCollisionGuard.putFew(m, key, value, "map", at);
                        }
                    }
                } else {
                    List<Object> list = newList(n);
                    container = list;
                    // A leading run of short ASCII strs (a list of names) in one loop, as the list serializer reads it.
                    left -= in.readAsciiStrings(list, left);
                    for (; left > 0; left--) {
                        int b = in.peek();
                        if (InBandLayout.isContainer(b)) {
                            break flat;
                        }
                        if (InBandLayout.isExt(b)) {
                            left -= nested().readRun(list, left) - 1; // at least this one; the loop counts it
                        } else {
                            list.add(in.readScalar(b));
                        }
                    }
                }
                return container;
            }
            handedOver = true;
        } finally {
            if (!handedOver) {
                nesting--;
            }
        }
        if (open == null) {
            open = new ContainerStack();
        }
        ContainerStack open = this.open;
        int bottom = open.size;
        open.push(container, map, left, at, pendingKey, guard);
        try {
            while (true) {
                long itemAt = in.offset();
                int b = in.peek();
                Object value;
                if (InBandLayout.isContainer(b)) {
                    boolean isMap = InBandLayout.isMap(b);
                    int count = isMap ? in.readMapHeader() : in.readArrayHeader();
                    enterContainer(itemAt);
                    Object inner = isMap ? newMap(count) : newList(count);
                    if (count > 0) {
                        open.push(inner, isMap, count, itemAt, ContainerStack.NO_KEY,
                                isMap && count > KeyCollisionGuard.PER_KEY ? new KeyCollisionGuard(count, "map", itemAt) : null);
                        continue;
                    }
                    nesting--;
                    value = inner;
                } else if (InBandLayout.isExt(b)) {
                    value = nested().read();
                } else {
                    value = open.wantsKey() ? readKey(b) : in.readScalar(b);
                }
                while (open.add(value)) {
                    value = open.pop();
                    nesting--;
                    if (open.size == bottom) {
                        return value;
                    }
                }
            }
        } finally {
            nesting -= open.size - bottom;
            open.truncate(bottom);
        }
    }

    private NestedReader nested() {
        NestedReader n = nested;
        return n != null ? n : (nested = in.nested());
    }

    private static List<Object> newList(int declared) {
        return new ArrayList<>(Math.min(declared, InBandReader.MAX_PRESIZE));
    }

    /** A map for {@code declared} entries, pre-sized (load factor 0.75) no further than a small bound. */
    private static Map<Object, Object> newMap(int declared) {
        int n = Math.min(declared, InBandReader.MAX_PRESIZE);
        return new LinkedHashMap<>(n + n / 3 + 1);
    }

    /** Counts an array or map whose header a serializer read itself (at {@code at}) as open. */
    void open(long at) {
        enterContainer(at);
    }

    /** Ends what {@link #open} counted. */
    void close() {
        nesting--;
    }

    private void enterContainer(long at) {
        Limits limits = in.limits();
        if (nesting >= limits.maxMsgpackNesting()) {
            throw new LimitExceededException("msgpack arrays and maps are nested more than maxMsgpackNesting="
                    + limits.maxMsgpackNesting() + " deep in one in-band; raise it with"
                    + " Limits.withMaxMsgpackNesting(...) if such values are expected", at);
        }
        nesting++;
    }
}
