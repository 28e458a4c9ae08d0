package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs of nested values of one class (a list of points): {@link InBandWriter#writeNestedValues}
 * and {@link InBandReader#readNestedValues} write and read them in one loop. They must write the
 * bytes value-by-value writing gives, stop where the run ends, and keep every check of a single
 * nested value: the depth limit, untrusted mode, and errors naming the class ID and the offset of
 * the value that failed.
 */
class NestedRunsTest {
    record Pair(long a, String b) {
    }

    record Other(long a) {
    }

    /** Pair as [a, b]; a label "bad" fails on reading, "throw" on writing. */
    static final class PairSerializer extends MsgpackSerializer<Pair> {
        PairSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Pair value, InBandWriter out) {
            if (value.b().equals("throw")) {
                throw new IllegalStateException("cannot write this pair");
            }
            out.writeArrayHeader(2).writeLong(value.a()).writeString(value.b());
        }

        @Override
        protected Pair read(InBandReader in) {
            in.readArrayHeader(2, "Pair");
            long a = in.readLong();
            long at = in.offset();
            String b = in.readString();
            if (b.equals("bad")) {
                throw in.error("a pair labelled bad", at);
            }
            return new Pair(a, b);
        }
    }

    /** Other as [a]. */
    static final class OtherSerializer extends MsgpackSerializer<Other> {
        OtherSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Other value, InBandWriter out) {
            out.writeArrayHeader(1).writeLong(value.a());
        }

        @Override
        protected Other read(InBandReader in) {
            in.readArrayHeader(1, "Other");
            return new Other(in.readLong());
        }
    }

    record Box(Object inner) {
    }

    /** Box as [inner], the inner value written and read as any value (a nested value when it is a Pair). */
    static final class BoxSerializer extends MsgpackSerializer<Box> {
        BoxSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Box value, InBandWriter out) {
            out.writeArrayHeader(1).writeValue(value.inner());
        }

        @Override
        protected Box read(InBandReader in) {
            in.readArrayHeader(1, "Box");
            return new Box(in.readValue());
        }
    }

    record Labelled(Object inner, String label) {
    }

    /** Labelled as [inner, label]: its payload goes on after the inner value. */
    static final class LabelledSerializer extends MsgpackSerializer<Labelled> {
        LabelledSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Labelled value, InBandWriter out) {
            out.writeArrayHeader(2).writeValue(value.inner()).writeString(value.label());
        }

        @Override
        protected Labelled read(InBandReader in) {
            in.readArrayHeader(2, "Labelled");
            return new Labelled(in.readValue(), in.readString());
        }
    }

    private static SerializerRegistry registry() {
        SerializerRegistry registry = new SerializerRegistry();
        registry.registerSerializer("test.Pair", Pair.class, new PairSerializer(registry));
        registry.registerSerializer("test.Other", Other.class, new OtherSerializer(registry));
        registry.registerSerializer("test.Box", Box.class, new BoxSerializer(registry));
        registry.registerSerializer("test.Labelled", Labelled.class, new LabelledSerializer(registry));
        return registry;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static List<Object> pairs(int n, int from) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Pair(from + i, "pair number " + (from + i)));
        }
        return out;
    }

    @Test
    void theWriterWritesARunOfOneClassAndStopsAtTheFirstItemOfAnother() {
        SerializerRegistry registry = registry();
        List<Object> items = pairs(3, 0);
        items.add(new Other(7));
        items.add(null);
        items.addAll(pairs(2, 10));
        InBandWriter byRun = new InBandWriter(registry);
        assertEquals(3, byRun.writeNestedValues(items, 0), "the pairs before the Other");
        assertEquals(4, byRun.writeNestedValues(items, 3), "one Other, then null ends the run");
        assertEquals(4, byRun.writeNestedValues(items, 4), "null is not a nested value");
        byRun.writeValue(null);
        assertEquals(7, byRun.writeNestedValues(items, 5), "the pairs to the end");
        assertEquals(7, byRun.writeNestedValues(items, 7), "nothing after the end");
        InBandWriter oneByOne = new InBandWriter(registry);
        for (Object item : items) {
            oneByOne.writeValue(item);
        }
        assertEquals(Arrays.toString(bytes(oneByOne.finish().inBand())), Arrays.toString(bytes(byRun.finish().inBand())),
                "the same bytes as value by value");
        InBandWriter plain = new InBandWriter(registry);
        assertEquals(0, plain.writeNestedValues(List.of("text", new Pair(1, "x")), 0), "a str is not a nested value");
        assertEquals(0, plain.writeNestedValues(List.of(List.of(new Pair(1, "x"))), 0), "nor a list");
    }

    @Test
    void theReaderReadsTheExtValuesInARowAndStopsBeforeAnythingElse() {
        SerializerRegistry registry = registry();
        List<Object> items = pairs(2, 0);
        items.add(new Other(5));
        items.addAll(pairs(2, 20));
        items.add("text");
        items.addAll(pairs(1, 30));
        InBandWriter out = new InBandWriter(registry);
        for (Object item : items) {
            out.writeValue(item);
        }
        SerializationResult doc = out.finish();
        InBandReader in = new InBandReader(registry, doc.inBand(), InBandReader.NO_BUFFERS);
        List<Object> back = new ArrayList<>();
        assertEquals(5, in.readNestedValues(back, 100), "two pairs, an Other, two pairs; stops before the str");
        assertEquals(0, in.readNestedValues(back, 100), "a str is not read");
        back.add(in.readValue());
        assertEquals(0, in.readNestedValues(back, 0), "max 0 reads nothing");
        assertEquals(1, in.readNestedValues(back, 100), "the last pair");
        assertEquals(0, in.readNestedValues(back, 100), "at the end: nothing");
        in.expectEnd();
        assertEquals(items, back);
    }

    @Test
    void aListOfPairsRoundTripsWithOtherValuesAnywhereInIt() {
        SerializerRegistry registry = registry();
        List<Object> value = pairs(40, 0);
        value.add(5, new Other(1));
        value.add(9, null);
        value.add(20, "text");
        value.add(List.of(pairs(3, 100), pairs(2, 200), new Other(2)));
        assertEquals(value, registry.deserialize(registry.serializeToFrame(value)));
        assertEquals(List.of(), registry.deserialize(registry.serializeToFrame(List.of())));
    }

    /**
     * A run of boxes whose second box holds a pair, then pairs: the pair read inside the box
     * becomes the class met last, and the pairs after the box are pairs, not boxes (each value
     * read by its own class's serializer, wherever a run of another class stops).
     */
    @Test
    void aValueOfTheClassMetInsideARunIsReadByItsOwnSerializer() {
        SerializerRegistry registry = registry();
        List<Object> value = new ArrayList<>();
        value.add(new Box(5L));
        value.add(new Box(new Pair(1, "pair number 1")));
        value.addAll(pairs(3, 2));
        value.add(new Box(new Pair(9, "pair number 9")));
        value.add(new Box("a str in a box"));
        value.addAll(pairs(2, 10));
        assertEquals(value, registry.deserialize(registry.serializeToFrame(value)));
        InBandWriter out = new InBandWriter(registry);
        for (Object item : value) {
            out.writeValue(item);
        }
        InBandReader in = new InBandReader(registry, out.finish().inBand(), InBandReader.NO_BUFFERS);
        List<Object> back = new ArrayList<>();
        assertEquals(value.size(), in.readNestedValues(back, 100));
        assertEquals(value, back);
    }

    /**
     * A run whose last value holds a nested value before more of its own payload: the reader
     * goes on after the run's last value, not after the value nested in it (whatever follows the
     * run: a str, a value of another class, the end of the list).
     */
    @Test
    void aRunEndsAfterItsLastValueNotAfterTheValueNestedInIt() {
        SerializerRegistry registry = registry();
        for (Object after : new Object[] {"text", new Other(3), 12L}) {
            List<Object> value = new ArrayList<>();
            value.add(new Labelled(5L, "first"));
            value.add(new Labelled(new Pair(1, "pair number 1"), "holds a pair"));
            value.add(after);
            value.add(new Labelled(new Pair(2, "pair number 2"), "last"));
            assertEquals(value, registry.deserialize(registry.serializeToFrame(value)), "then " + after);
            assertEquals(List.of(value, "end"), registry.deserialize(registry.serializeToFrame(List.of(value, "end"))));
        }
    }

    @Test
    void theDepthLimitHoldsForEveryValueOfARun() {
        SerializerRegistry registry = registry();
        ByteBuffer frame = registry.serializeToFrame(pairs(5, 0));
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> registry.deserialize(frame.duplicate(), Limits.DEFAULT.withMaxDepth(1)));
        assertTrue(e.getMessage().contains("maxDepth=1"), e.getMessage());
        assertEquals(pairs(5, 0), registry.deserialize(frame.duplicate(), Limits.DEFAULT.withMaxDepth(2)));
    }

    @Test
    void untrustedModeRefusesAClassThatStartsARunAfterAnAllowedOne() {
        SerializerRegistry registry = registry();
        List<Object> value = pairs(4, 0);
        value.add(new Other(1));
        value.add(new Other(2));
        ByteBuffer frame = registry.serializeToFrame(value);
        registry.setTrusted(false);
        registry.allowClassIds("test.Pair");
        UntrustedClassIdException e = assertThrows(UntrustedClassIdException.class,
                () -> registry.deserialize(frame.duplicate()));
        assertTrue(e.getMessage().contains("test.Other"), e.getMessage());
        registry.allowClassIds("test.Other");
        assertEquals(value, registry.deserialize(frame.duplicate()));
    }

    @Test
    void aValueThatFailsInTheMiddleOfARunIsNamedWithItsOffset() {
        SerializerRegistry registry = registry();
        List<Object> value = pairs(6, 0);
        value.set(3, new Pair(3, "bad"));
        byte[] frame = bytes(registry.serializeToFrame(value));
        DeserializationException e = assertThrows(DeserializationException.class,
                () -> registry.deserialize(ByteBuffer.wrap(frame)));
        assertEquals(List.of("list", "test.Pair"), e.classIdPath());
        assertTrue(e.getMessage().contains("a pair labelled bad"), e.getMessage());
        byte[] label = "bad".getBytes(StandardCharsets.US_ASCII);
        int at = -1;
        for (int i = 0; i + 3 <= frame.length; i++) {
            if (frame[i] == (byte) (0xa0 | 3) && Arrays.equals(frame, i + 1, i + 4, label, 0, 3)) {
                at = i;
            }
        }
        assertEquals(at, e.offset(), "the offset of the str header in the frame");
    }

    @Test
    void aSerializerThatFailsInARunIsNamedByItsClassId() {
        SerializerRegistry registry = registry();
        List<Object> value = pairs(6, 0);
        value.set(4, new Pair(4, "throw"));
        SerializationException e = assertThrows(SerializationException.class, () -> registry.serializeToFrame(value));
        assertTrue(e.getMessage().startsWith("serializer for class ID 'test.Pair' failed on a " + Pair.class.getName()),
                e.getMessage());
        assertTrue(e.getMessage().contains("cannot write this pair"), e.getMessage());
        InBandWriter out = new InBandWriter(registry);
        assertThrows(SerializationException.class, () -> out.writeNestedValues(value, 0));
    }
}
