package serreg.standard;

import java.util.Map;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.KeyCollisionGuard;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/**
 * Class ID {@code dict}: any {@code java.util.Map}, msgpack map in iteration order, keys of any
 * type; decodes to {@code LinkedHashMap} (so Python's insertion order is kept).
 */
public final class DictSerializer extends MsgpackSerializer<Map<?, ?>> implements InlineSerializer<Map<?, ?>> {
    public DictSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** The writer writes these values itself (docs/FORMAT.md section 3): the same bytes as {@link #writeInline}. */
    @Override
    public Form inlineForm() {
        return Form.MAP;
    }

    @Override
    public void writeInline(Map<?, ?> value, InBandWriter out) {
        write(value, out);
    }

    @Override
    protected void write(Map<?, ?> value, InBandWriter out) {
        out.writeMap(value); // header, then each key and value, without an iterator
    }

    @Override
    protected Map<?, ?> read(InBandReader in) {
        long at = in.offset();
        int n = in.openMap();
        Map<Object, Object> map = in.newMapForEntries(n);
        if (n <= KeyCollisionGuard.PER_KEY) { // never counted: no guard object
            for (int i = 0; i < n; i++) {
                Object key = in.readMapKey();
                KeyCollisionGuard.putFew(map, key, in.readValue(), "dict", at);
            }
            in.closeContainer();
            return map;
        }
        KeyCollisionGuard guard = new KeyCollisionGuard(n, "dict", at);
        for (int i = 0; i < n; i++) {
            Object key = in.readMapKey();
            guard.put(map, key, in.readValue());
        }
        in.closeContainer();
        return map;
    }
}
