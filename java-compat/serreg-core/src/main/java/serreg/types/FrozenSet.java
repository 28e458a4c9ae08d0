package serreg.types;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/** Python's {@code frozenset}: an immutable set (class ID {@code frozenset}), iteration in insertion order. */
public final class FrozenSet {
    private final Set<Object> items;

    private FrozenSet(Set<Object> items) {
        this.items = Collections.unmodifiableSet(items);
    }

    public static FrozenSet of(Object... items) {
        Set<Object> set = new LinkedHashSet<>();
        Collections.addAll(set, items);
        return new FrozenSet(set);
    }

    public static FrozenSet copyOf(Collection<?> items) {
        return new FrozenSet(new LinkedHashSet<>(items));
    }

    /** The elements as an unmodifiable set. */
    public Set<Object> items() {
        return items;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FrozenSet f && f.items.equals(items);
    }

    @Override
    public int hashCode() {
        return items.hashCode() * 31 + 11;
    }

    @Override
    public String toString() {
        return "FrozenSet" + items;
    }
}
