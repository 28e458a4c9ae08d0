package serreg.arrow;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * The dictionaries of a {@link VectorSchemaRoot}'s dictionary-encoded columns (docs/FORMAT.md
 * section 6.4). Arrow Java keeps a dictionary-encoded column as its index vector, whose field
 * names a dictionary id, and the dictionaries apart, in a {@link DictionaryProvider}: a root read
 * from a frame has its provider here, and a root to be written with dictionary-encoded columns
 * gets one with {@link #attach}. Closing a root does not close its dictionaries: call {@link #close}.
 */
public final class ArrowDictionaries {
    private static final Map<VectorSchemaRoot, DictionaryProvider.MapDictionaryProvider> PROVIDERS =
            Collections.synchronizedMap(new WeakHashMap<>());

    private ArrowDictionaries() {
    }

    /**
     * The dictionaries of {@code root}'s dictionary-encoded columns.
     *
     * @param root a root read by the Arrow serializers, or given dictionaries with {@link #attach}
     * @return its provider, or null when it has none
     */
    public static DictionaryProvider of(VectorSchemaRoot root) {
        return PROVIDERS.get(root);
    }

    /**
     * Gives {@code root} the dictionaries its dictionary-encoded columns name, for writing it.
     *
     * @param root the root
     * @param provider its dictionaries (closed by {@link #close})
     */
    public static void attach(VectorSchemaRoot root, DictionaryProvider.MapDictionaryProvider provider) {
        PROVIDERS.put(root, provider);
    }

    /**
     * Closes the dictionaries of {@code root}, if it has any (the root itself is closed by its owner).
     *
     * @param root the root
     */
    public static void close(VectorSchemaRoot root) {
        DictionaryProvider.MapDictionaryProvider provider = PROVIDERS.remove(root);
        if (provider != null) {
            provider.close();
        }
    }
}
