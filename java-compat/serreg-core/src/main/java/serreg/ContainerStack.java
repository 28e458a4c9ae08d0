package serreg;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The arrays and maps an {@link InBandReader} is filling once they nest, as parallel arrays: no
 * object per open container, no recursion. Map entries go in through {@link KeyCollisionGuard}
 * (a guard object only for maps large enough to need counting). Package-private.
 */
final class ContainerStack {
    static final Object NO_KEY = new Object();
    Object[] containers = new Object[4];
    int[] left = new int[4];
    Object[] keys = new Object[4];
    KeyCollisionGuard[] guards = new KeyCollisionGuard[4];
    long[] offsets = new long[4];
    boolean[] maps = new boolean[4];
    int size;

    void push(Object container, boolean map, int n, long at, Object key, KeyCollisionGuard guard) {
        if (size == containers.length) {
            int grown = size * 2;
            containers = Arrays.copyOf(containers, grown);
            left = Arrays.copyOf(left, grown);
            keys = Arrays.copyOf(keys, grown);
            guards = Arrays.copyOf(guards, grown);
            offsets = Arrays.copyOf(offsets, grown);
            maps = Arrays.copyOf(maps, grown);
        }
        containers[size] = container;
        left[size] = n;
        keys[size] = key;
        maps[size] = map;
        guards[size] = guard;
        offsets[size] = at;
        size++;
    }

    /** Whether the top container is a map waiting for its next key. */
    boolean wantsKey() {
        int top = size - 1;
        return maps[top] && keys[top] == NO_KEY;
    }

    /** Adds an item to the top container (a map's key, then its value); true when it is complete. */
    @SuppressWarnings("unchecked")
    boolean add(Object item) {
        int top = size - 1;
        if (!maps[top]) {
            ((List<Object>) containers[top]).add(item);
            return --left[top] == 0;
        }
        if (keys[top] == NO_KEY) {
            keys[top] = item;
            return false;
        }
        Map<Object, Object> map = (Map<Object, Object>) containers[top];
        KeyCollisionGuard guard = guards[top];
        if (guard != null) {
            guard.put(map, keys[top], item);
        } else {
            KeyCollisionGuard.putFew(map, keys[top], item, "map", offsets[top]);
        }
        keys[top] = NO_KEY;
        return --left[top] == 0;
    }

    Object pop() {
        size--;
        Object c = containers[size];
        containers[size] = null;
        keys[size] = null;
        guards[size] = null;
        return c;
    }

    void truncate(int to) {
        while (size > to) {
            pop();
        }
    }
}
