package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Nested values of a serializer that implements {@link Serializer} itself (not a
 * {@link MsgpackSerializer}): its result's in-band is copied into the document and its buffers
 * taken as they are, with nothing allocated per value beyond what the serializer allocates.
 */
class PlainSerializerNestingTest {
    record Tag(int id) {
    }

    /** A Tag's in-band: one msgpack positive fixint, from a table of results made once. */
    static final class TagSerializer implements Serializer<Tag> {
        private final SerializationResult[] results = new SerializationResult[128];

        TagSerializer() {
            for (int i = 0; i < results.length; i++) {
                results[i] = new SerializationResult(ByteBuffer.wrap(new byte[] {(byte) i}));
            }
        }

        @Override
        public SerializationResult serialize(Tag value) {
            return results[value.id()];
        }

        @Override
        public Tag deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
            return new Tag(inBand.get(inBand.position()));
        }
    }

    @Test
    void aListOfPlainSerializersValuesRoundTrips() {
        SerializerRegistry registry = new SerializerRegistry();
        registry.registerSerializer("test.Tag", Tag.class, new TagSerializer());
        List<Object> value = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            value.add(i % 7 == 0 ? "text" : new Tag(i));
        }
        assertEquals(value, registry.deserialize(registry.serializeToFrame(value)));
        SerializationResult again = registry.serialize(value);
        assertEquals(value, registry.deserialize(again));
    }

    @Test
    void readingANestedValueMakesOneViewOfItsInBandAndNoOther() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        SerializerRegistry registry = new SerializerRegistry();
        registry.registerSerializer("test.Tag", Tag.class, new TagSerializer());
        ByteBuffer small = registry.serializeToFrame(tags(1_000));
        ByteBuffer large = registry.serializeToFrame(tags(3_000));
        for (int i = 0; i < 3; i++) {
            registry.deserialize(small.duplicate()); // the caches' first lookups
            registry.deserialize(large.duplicate());
        }
        long before = mx.getThreadAllocatedBytes(thread);
        registry.deserialize(small.duplicate());
        long between = mx.getThreadAllocatedBytes(thread);
        registry.deserialize(large.duplicate());
        long perValue = (mx.getThreadAllocatedBytes(thread) - between - (between - before)) / 2_000;
        // a Tag (16 B), its slot in the list (4 B) and the one view its serializer is given (48 to 56 B)
        assertTrue(perValue < 90, perValue + " bytes allocated per nested value read");
    }

    private static List<Object> tags(int n) {
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Tag(i & 127));
        }
        return out;
    }

    @Test
    void writingANestedValueAllocatesNothingBeyondTheSerializersResult() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        SerializerRegistry registry = new SerializerRegistry();
        registry.registerSerializer("test.Tag", Tag.class, new TagSerializer());
        Tag[] tags = new Tag[128];
        for (int i = 0; i < tags.length; i++) {
            tags[i] = new Tag(i);
        }
        InBandWriter out = new InBandWriter(registry, new byte[1 << 20], null); // room for every value below
        out.writeValue(tags[0]); // the class cache's first lookup
        int n = 3_000;
        long before = mx.getThreadAllocatedBytes(thread);
        for (int i = 0; i < n; i++) {
            out.writeValue(tags[i & 127]);
        }
        long allocated = mx.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < n, allocated + " bytes allocated writing " + n + " nested values");
    }
}
