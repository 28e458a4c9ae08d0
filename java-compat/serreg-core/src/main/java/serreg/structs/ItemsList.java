package serreg.structs;

import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * An {@link ArrayList} of the instances an ext 2 list's builder put in an array, made with one
 * copy of the array: {@code new ArrayList<>(collection)} copies what the collection's
 * {@code toArray} returns, and this one returns the array itself (it is never used again).
 */
final class ItemsList extends AbstractCollection<Object> {
    private final Object[] items;

    private ItemsList(Object[] items) {
        this.items = items;
    }

    /** A new ArrayList holding {@code items} (which the caller no longer uses). */
    static List<Object> of(Object[] items) {
        return new ArrayList<>(new ItemsList(items));
    }

    @Override
    public Object[] toArray() {
        return items;
    }

    @Override
    public Iterator<Object> iterator() {
        return Arrays.asList(items).iterator();
    }

    @Override
    public int size() {
        return items.length;
    }
}
