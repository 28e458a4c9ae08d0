package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Maps written by {@link InBandWriter#writeMap}: the same bytes as each key and value written in
 * iteration order, and nothing allocated per map (no iterator, no entry), whatever the map's class.
 */
class MapWritingTest {
    private static Map<String, Object> fill(Map<String, Object> m, long i) {
        m.put("id", i);
        m.put("name", "user");
        m.put("score", 0.5);
        m.put("ok", true);
        return m;
    }

    @Test
    void aMapIsWrittenInIterationOrderAsWriteValueWritesItsKeysAndValues() {
        SerializerRegistry registry = new SerializerRegistry();
        List<Map<String, Object>> maps = List.of(fill(new LinkedHashMap<>(), 1), fill(new HashMap<>(), 2),
                fill(new TreeMap<>(), 3), Map.of("k", 4L));
        for (Map<String, Object> map : maps) {
            InBandWriter byMap = new InBandWriter(registry).writeMap(map);
            InBandWriter byHand = new InBandWriter(registry).writeMapHeader(map.size());
            for (Map.Entry<String, Object> e : map.entrySet()) {
                byHand.writeValue(e.getKey()).writeValue(e.getValue());
            }
            assertEquals(Arrays.toString(bytes(byHand.finish().inBand())), Arrays.toString(bytes(byMap.finish().inBand())),
                    map.getClass().getName());
            assertEquals(map, registry.deserialize(registry.serializeToFrame(map)));
        }
    }

    @Test
    void writingAMapAllocatesNothingPerMap() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        SerializerRegistry registry = new SerializerRegistry();
        List<Map<String, Object>> maps = List.of(fill(new LinkedHashMap<>(), 1), fill(new HashMap<>(), 2),
                fill(new TreeMap<>(), 3));
        InBandWriter out = new InBandWriter(registry, new byte[1 << 20], null); // room for every map below
        for (Map<String, Object> m : maps) {
            out.writeMap(m); // the class cache's first lookups
        }
        int n = 3_000;
        long before = mx.getThreadAllocatedBytes(thread);
        for (int i = 0; i < n; i++) {
            out.writeMap(maps.get(i % 3));
        }
        long allocated = mx.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < n, allocated + " bytes allocated writing " + n + " maps");
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
