package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The caches of the Java codec's hot paths: the per-thread map-key cache, the writer's class
 * table (kept across serialize calls by the pooled writer) and the short-str ASCII check. Each
 * must give the answer the uncached path gives, under collisions and after registrations change.
 */
class CodecCachesTest {
    /** Writes a String upper-cased with a "!" (so a test can tell it ran). */
    static final class Shout extends MsgpackSerializer<String> {
        Shout(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(String value, InBandWriter out) {
            out.writeString(value.toUpperCase(java.util.Locale.ROOT) + "!");
        }

        @Override
        protected String read(InBandReader in) {
            return in.readString();
        }
    }

    private static byte[] frame(SerializerRegistry registry, Object value) {
        ByteBuffer b = registry.serializeToFrame(value);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void keyCacheReturnsTheSameStringForTheSameBytesAndNeverAWrongOne() {
        KeyCache cache = new KeyCache();
        byte[] b = "xidyid".getBytes(StandardCharsets.US_ASCII);
        String first = cache.ascii(b, 1, 2);
        assertEquals("id", first);
        assertSame(first, cache.ascii(b, 4, 2), "a key met before is not built again");
        assertEquals("xi", cache.ascii(b, 0, 2));
        assertNull(cache.ascii("é".getBytes(StandardCharsets.UTF_8), 0, 2), "not ASCII: not for the cache");
        // Keys with equal String hash codes ("Aa" and "BB") share a slot: each still comes back as itself.
        byte[] aa = "Aa".getBytes(StandardCharsets.US_ASCII);
        byte[] bb = "BB".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 3; i++) {
            assertEquals("Aa", cache.ascii(aa, 0, 2));
            assertEquals("BB", cache.ascii(bb, 0, 2));
        }
    }

    @Test
    void decodedRecordsShareTheirKeysAndEqualTheOriginals() {
        SerializerRegistry registry = new SerializerRegistry();
        List<Map<String, Object>> records = new ArrayList<>();
        for (long i = 0; i < 300; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", i);
            r.put("naïve", "ü" + i); // a non-ASCII key: decoded, not cached
            r.put("k" + i, i * 0.5); // 300 distinct keys: more than the cache holds
            records.add(r);
        }
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> back = (List<Map<String, Object>>) registry.deserialize(ByteBuffer.wrap(frame(registry, records)));
        assertEquals(records, back);
        String id0 = back.get(0).keySet().iterator().next();
        String id1 = back.get(1).keySet().iterator().next();
        assertSame(id0, id1, "the short ASCII key of every record is one String");
    }

    @Test
    void theWritersClassTableFollowsRegistrationChanges() {
        SerializerRegistry registry = new SerializerRegistry();
        List<Object> value = List.of(1L, "a", 2.5, true);
        byte[] before = frame(registry, value);
        assertEquals(value, registry.deserialize(ByteBuffer.wrap(before)));
        // Strings now written by another serializer (as ext 0 under its own class ID): the pooled
        // writer of this thread must not keep writing them the old way.
        registry.registerSerializer("test.shout", String.class, new Shout(registry));
        byte[] after = frame(registry, value);
        assertFalse(java.util.Arrays.equals(before, after), "the new serializer was used");
        assertEquals(List.of(1L, "A!", 2.5, true), registry.deserialize(ByteBuffer.wrap(after)));
    }

    @Test
    void theShortStrAsciiCheckSeesOnlyItsOwnBytes() {
        byte[] b = new byte[20];
        java.util.Arrays.fill(b, (byte) 'a');
        b[5] = (byte) 0xc3; // non-ASCII just past a 5-byte str at 0, and inside one at 3
        assertTrue(Utf8.isAscii(b, 0, 5));
        assertFalse(Utf8.isAscii(b, 3, 7));
        assertTrue(Utf8.isAscii(b, 6, 13));
        b[19] = (byte) 0x80; // near the end: fewer than 8 readable bytes from the start
        assertTrue(Utf8.isAscii(b, 14, 19));
        assertFalse(Utf8.isAscii(b, 15, 20));
        assertTrue(Utf8.isAscii(b, 20, 20));
    }

    @Test
    void strictUtf8StillRejectsAfterTheAsciiFastPath() {
        assertNull(Utf8.decode(new byte[] {'a', (byte) 0xc0, (byte) 0x80}, 0, 3), "overlong form");
        assertEquals("aé", Utf8.decode("aé".getBytes(StandardCharsets.UTF_8), 0, 3));
        assertNotSame(Utf8.decode("ab".getBytes(StandardCharsets.US_ASCII), 0, 2), "ab");
    }
}
