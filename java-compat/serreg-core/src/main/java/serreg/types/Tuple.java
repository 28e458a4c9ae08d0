package serreg.types;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Python's {@code tuple}: an immutable ordered sequence (class ID {@code tuple}). Elements may be null. */
public final class Tuple {
    private final List<Object> items;

    private Tuple(List<Object> items) {
        this.items = Collections.unmodifiableList(items);
    }

    public static Tuple of(Object... items) {
        return new Tuple(new ArrayList<>(Arrays.asList(items)));
    }

    public static Tuple copyOf(List<?> items) {
        return new Tuple(new ArrayList<>(items));
    }

    /** The elements as an unmodifiable list. */
    public List<Object> items() {
        return items;
    }

    public int size() {
        return items.size();
    }

    public Object get(int index) {
        return items.get(index);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tuple t && t.items.equals(items);
    }

    @Override
    public int hashCode() {
        return items.hashCode() * 31 + 7;
    }

    @Override
    public String toString() {
        return "Tuple" + items;
    }
}
