package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import serreg.wire.ClassIdHash;

/**
 * The struct table of a serialize call, made only when the call writes its first struct: every
 * way a struct is written (an instance, an ext 2 list, deep inside containers, inside a nested
 * serialize call a serializer makes, before or after it) must still find its call's own table,
 * a call that writes none must write no table, and a call that fails must leave nothing behind
 * for the next call on the thread.
 */
class LazyStructTableTest {
    record P(long x, long y) {
    }

    record Q(String s) {
    }

    /** A value its serializer writes by serializing {@code inner} with the registry (a nested call) and embedding the section. */
    record Box(Object inner) {
    }

    /** A value whose serializer always fails. */
    record Boom() {
    }

    static final long STRUCTS = ClassIdHash.of("serreg.structs").toLong();

    /** Box as a bin holding {@code registry.serialize(inner)}'s in-band section (no OOB buffers here). */
    static final class BoxSerializer implements Serializer<Box> {
        private final SerializerRegistry registry;

        BoxSerializer(SerializerRegistry registry) {
            this.registry = registry;
        }

        @Override
        public SerializationResult serialize(Box value) {
            ByteBuffer section = registry.serialize(value.inner()).inBand();
            byte[] bytes = new byte[section.remaining()];
            section.get(bytes);
            return new InBandWriter(registry).writeBinary(bytes).finish();
        }

        @Override
        public Box deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
            byte[] section = new InBandReader(registry, inBand, outOfBand).readBinary();
            return new Box(registry.deserializeSection(ByteBuffer.wrap(section), outOfBand));
        }
    }

    static final class BoomSerializer implements Serializer<Boom> {
        @Override
        public SerializationResult serialize(Boom value) {
            throw new IllegalStateException("boom");
        }

        @Override
        public Boom deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
            return new Boom();
        }
    }

    private static SerializerRegistry registry() {
        SerializerRegistry r = new SerializerRegistry();
        r.registerStruct(P.class, "t.P");
        r.registerStruct(Q.class, "t.Q");
        r.registerSerializer("t.Box", Box.class, new BoxSerializer(r));
        r.registerSerializer("t.Boom", Boom.class, new BoomSerializer());
        return r;
    }

    /** The first ClassIDHash of a section (u64 little-endian). */
    private static long firstHash(ByteBuffer section) {
        return section.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(section.position());
    }

    /** How many definitions the table in front of a section holds (its array header, after the table's hash). */
    private static int definitionCount(ByteBuffer section) {
        assertEquals(STRUCTS, firstHash(section), "the section starts with a struct table");
        int b = section.get(section.position() + 8) & 0xff;
        assertEquals(0x90, b & 0xf0, "a table of fewer than 16 definitions");
        return b & 0x0f;
    }

    /** The value serialized, checked to round-trip both as a result and as a frame; its in-band section. */
    private static ByteBuffer roundTrips(SerializerRegistry r, Object value) {
        SerializationResult result = r.serialize(value);
        assertEquals(value, r.deserialize(result));
        assertEquals(value, r.deserialize(r.serializeToFrame(value)));
        return result.inBand();
    }

    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    @Test
    void aValueWithoutStructsHasNoTable() {
        SerializerRegistry r = registry();
        ByteBuffer section = roundTrips(r, map("a", 1L, "b", List.of("x", 2.5)));
        assertEquals(r.hashOf("dict").toLong(), firstHash(section));
    }

    @Test
    void structsMetOnlyDeepInsideContainersGetTheTable() {
        SerializerRegistry r = registry();
        Object deep = map("k", List.of(map("m", new ArrayList<>(List.of(1L, new P(7, 8))))));
        assertEquals(1, definitionCount(roundTrips(r, deep)));
        Object deepList = map("k", List.of(map("pts", List.of(new P(1, 2), new P(3, 4), new P(5, 6)))));
        assertEquals(1, definitionCount(roundTrips(r, deepList)), "an ext 2 list inside containers");
        Object both = List.of(List.of(new Q("a")), map("p", List.of(new P(1, 2), new P(3, 4))), new Q("b"));
        assertEquals(2, definitionCount(roundTrips(r, both)));
        assertEquals(1, definitionCount(roundTrips(r, new P(1, 2))), "a top-level instance");
    }

    @Test
    void aNestedSerializeCallHasItsOwnTable() {
        SerializerRegistry r = registry();
        // Structs before and after the nested call: the outer table holds P only, the inner one Q only.
        List<Object> around = List.of(new P(1, 2), new Box(List.of(new Q("q"))), new P(3, 4));
        assertEquals(1, definitionCount(roundTrips(r, around)));
        // The outer call writes no struct of its own: no table, though the nested call made one.
        ByteBuffer boxOnly = roundTrips(r, new Box(new P(5, 6)));
        assertEquals(r.hashOf("t.Box").toLong(), firstHash(boxOnly));
        // The outer call's first struct comes after the nested call ended.
        assertEquals(1, definitionCount(roundTrips(r, List.of(new Box(List.of(new Q("a"), new P(0, 0))), new P(1, 1)))));
        // Two levels of nested calls, each with structs, inside containers.
        Object twoLevels = map("x", List.of(new Q("outer"), new Box(List.of(new P(1, 1), new Box(new Q("in"))))));
        assertEquals(1, definitionCount(roundTrips(r, twoLevels)));
    }

    @Test
    void aFailedCallLeavesNoTableBehind() {
        SerializerRegistry r = registry();
        assertThrows(SerializationException.class, () -> r.serialize(List.of(new P(1, 2), new Boom())));
        assertThrows(SerializationException.class,
                () -> r.serializeToFrame(List.of(new Q("a"), new Box(List.of(new P(1, 2), new Boom())))));
        assertThrows(SerializationException.class, () -> r.serialize(new Box(List.of(new Q("a"), new Boom()))));
        assertEquals(r.hashOf("list").toLong(), firstHash(roundTrips(r, List.of(1L, "two"))));
        ByteBuffer section = roundTrips(r, List.of(new Q("z"), new Q("y")));
        assertEquals(1, definitionCount(section), "only this call's definition");
    }

    @Test
    void aStructIsWrittenOnlyInsideSerialize() {
        SerializerRegistry r = registry();
        @SuppressWarnings("unchecked")
        Serializer<P> structs = (Serializer<P>) r.getSerializer("t.P");
        SerializationException e = assertThrows(SerializationException.class, () -> structs.serialize(new P(1, 2)));
        assertEquals(true, e.getMessage().contains("struct table"), e.getMessage());
        assertEquals(1, definitionCount(roundTrips(r, new P(1, 2))), "and serialize still works after");
    }
}
