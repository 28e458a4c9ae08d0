package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The reader a thread's deserialize calls reuse (instead of a reader, a container reader and an
 * ext values reader per call): a serializer that calls deserialize again mid-document, a read that
 * fails with containers open, a trusted read before an untrusted one, two registries on one
 * thread, and several threads at once must each read exactly what a new reader reads.
 */
class PooledReaderTest {
    record Pair(long a, String b) {
    }

    /** A value whose serializer embeds a whole frame of {@code inner} and reads it with deserialize, mid-document. */
    record Env(Object inner) {
    }

    /** A value whose serializer reads part of its document, then fails. */
    record Fails() {
    }

    /** A value whose serializer reads a hostile frame with deserialize (which fails), then goes on with its own document. */
    record Guarded(String after) {
    }

    static final class PairSerializer extends MsgpackSerializer<Pair> {
        PairSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Pair value, InBandWriter out) {
            out.writeArrayHeader(2).writeLong(value.a()).writeString(value.b());
        }

        @Override
        protected Pair read(InBandReader in) {
            in.readArrayHeader(2, "Pair");
            return new Pair(in.readLong(), in.readString());
        }
    }

    /** A Pair as another registry reads it. */
    record Swapped(String b, long a) {
    }

    /** Reads a Pair's bytes as a Swapped: another registry's serializer for the same class ID. */
    static final class SwappedSerializer extends MsgpackSerializer<Swapped> {
        SwappedSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Swapped value, InBandWriter out) {
            out.writeArrayHeader(2).writeLong(value.a()).writeString(value.b());
        }

        @Override
        protected Swapped read(InBandReader in) {
            in.readArrayHeader(2, "Pair");
            long a = in.readLong();
            return new Swapped(in.readString(), a);
        }
    }

    static final class EnvSerializer extends MsgpackSerializer<Env> {
        EnvSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Env value, InBandWriter out) {
            out.writeArrayHeader(3).writeString("before").writeBinary(bytes(registry, value.inner())).writeString("after");
        }

        @Override
        protected Env read(InBandReader in) {
            in.readArrayHeader(3, "Env");
            assertEquals("before", in.readString());
            Object inner = registry.deserialize(ByteBuffer.wrap(in.readBinary()));
            assertEquals("after", in.readString());
            return new Env(inner);
        }
    }

    static final class FailsSerializer extends MsgpackSerializer<Fails> {
        FailsSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Fails value, InBandWriter out) {
            out.writeArrayHeader(2).writeLong(1).writeLong(2);
        }

        @Override
        protected Fails read(InBandReader in) {
            in.readArrayHeader(2, "Fails");
            in.readLong();
            throw new IllegalStateException("failing on purpose mid-document");
        }
    }

    static final class GuardedSerializer extends MsgpackSerializer<Guarded> {
        GuardedSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Guarded value, InBandWriter out) {
            out.writeArrayHeader(2).writeBinary(hostile(registry)).writeString(value.after());
        }

        @Override
        protected Guarded read(InBandReader in) {
            in.readArrayHeader(2, "Guarded");
            byte[] hostile = in.readBinary();
            assertThrows(DeserializationException.class, () -> registry.deserialize(ByteBuffer.wrap(hostile)));
            return new Guarded(in.readString());
        }
    }

    private static SerializerRegistry registry() {
        SerializerRegistry r = new SerializerRegistry();
        r.registerSerializer("test.Pair", Pair.class, new PairSerializer(r));
        r.registerSerializer("test.Env", Env.class, new EnvSerializer(r));
        r.registerSerializer("test.Fails", Fails.class, new FailsSerializer(r));
        r.registerSerializer("test.Guarded", Guarded.class, new GuardedSerializer(r));
        return r;
    }

    private static byte[] bytes(SerializerRegistry r, Object value) {
        ByteBuffer b = r.serializeToFrame(value);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /**
     * A well-formed frame whose in-band is not: [[[1, 2], [3]], "x"] with the array [3] declaring
     * 3 items, so the reader takes "x" into it and fails at the end with three arrays open.
     */
    static byte[] hostile(SerializerRegistry r) {
        byte[] frame = bytes(r, List.of(List.of(List.of(1L, 2L), List.of(3L)), "x"));
        byte[] tail = {(byte) 0x91, 0x03, (byte) 0xa1, 0x78};
        int at = frame.length - tail.length;
        assertEquals(HexFormat.of().formatHex(tail), HexFormat.of().formatHex(frame, at, frame.length));
        frame[at] = (byte) 0x93;
        return frame;
    }

    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    /** Nested containers, nested values read in place (Pair) and a ClassIDHash met twice. */
    private static Object nested(int i) {
        return map("a", List.of((long) i, map("p", new Pair(i, "p" + i), "q", new ArrayList<>(List.of(new Pair(-i, "q"))))),
                "b", List.of(List.of("x" + i), 2.5), "c", "tail" + i);
    }

    /** An in-band section of a list whose nested lists are cut short (the reader fails with three open). */
    private static SerializationResult cutShort(SerializerRegistry r) {
        ByteBuffer section = r.serialize(List.of(List.of(List.of(1L, 2L, 3L), "x"), "y")).inBand();
        byte[] bytes = new byte[section.remaining() - 4];
        section.get(bytes);
        return new SerializationResult(ByteBuffer.wrap(bytes), List.of());
    }

    @Test
    void aSerializerThatDeserializesAgainMidDocument() {
        SerializerRegistry r = registry();
        Object value = List.of(map("a", List.of(1L, new Env(nested(1)), List.of(new Pair(2, "z"))), "b", List.of(2L, 3L)),
                new Env(List.of(new Env(nested(2)), new Pair(3, "w"))), "end");
        assertEquals(value, r.deserialize(r.serializeToFrame(value)));
        assertEquals(value, r.deserialize(r.serialize(value)));
        Object guarded = List.of(map("g", List.of(new Guarded("after"), List.of(new Pair(4, "v")))), nested(3));
        assertEquals(guarded, r.deserialize(r.serializeToFrame(guarded)));
    }

    @Test
    void anExceptionMidReadThenAGoodReadOnTheSameThread() {
        SerializerRegistry r = registry();
        Object failing = List.of(map("a", List.of(1L, List.of(new Pair(1, "x"), new Fails()))), "b");
        ByteBuffer failingFrame = r.serializeToFrame(failing);
        for (int i = 0; i < 3; i++) {
            DeserializationException e = assertThrows(DeserializationException.class, () -> r.deserialize(failingFrame.duplicate()));
            assertEquals(true, e.getMessage().contains("failing on purpose"), e.getMessage());
            assertEquals(nested(i), r.deserialize(r.serializeToFrame(nested(i))));
            assertThrows(DeserializationException.class, () -> r.deserialize(cutShort(r)));
            assertEquals(nested(i), r.deserialize(r.serialize(nested(i))));
        }
    }

    @Test
    void aTrustedReadDoesNotLetAnUntrustedOneSkipTheAllowList() {
        SerializerRegistry r = registry();
        ByteBuffer frame = r.serializeToFrame(List.of(new Pair(1, "a"), new Pair(2, "b")));
        assertEquals(List.of(new Pair(1, "a"), new Pair(2, "b")), r.deserialize(frame.duplicate()));
        assertThrows(UntrustedClassIdException.class, () -> r.deserialize(frame.duplicate(), false));
        r.allowClassIds("test.Pair");
        assertEquals(List.of(new Pair(1, "a"), new Pair(2, "b")), r.deserialize(frame.duplicate(), false));
    }

    @Test
    void twoRegistriesOnOneThreadEachUseTheirOwnSerializers() {
        SerializerRegistry writer = registry();
        SerializerRegistry other = new SerializerRegistry();
        other.registerSerializer("test.Pair", Swapped.class, new SwappedSerializer(other));
        ByteBuffer frame = writer.serializeToFrame(List.of(new Pair(1, "a"), new Pair(2, "b")));
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of(new Pair(1, "a"), new Pair(2, "b")), writer.deserialize(frame.duplicate()));
            assertEquals(List.of(new Swapped("a", 1), new Swapped("b", 2)), other.deserialize(frame.duplicate()));
        }
    }

    @Test
    void severalThreadsReadAtOnce() throws Exception {
        SerializerRegistry r = registry();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                Callable<Integer> reads = () -> {
                    int checked = 0;
                    for (int i = 0; i < 2000; i++) {
                        Object value = i % 7 == 0 ? new Env(nested(thread * 10_000 + i)) : nested(thread * 10_000 + i);
                        ByteBuffer frame = r.serializeToFrame(value);
                        assertEquals(value, r.deserialize(frame), "thread " + thread + ", read " + i);
                        if (i % 50 == 0) {
                            assertThrows(DeserializationException.class, () -> r.deserialize(cutShort(r)));
                        }
                        checked++;
                    }
                    return checked;
                };
                done.add(pool.submit(reads));
            }
            for (Future<Integer> f : done) {
                assertEquals(2000, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReaderGivenBackHoldsNoFrame() {
        SerializerRegistry r = registry();
        byte[] bytes = bytes(r, nested(1));
        assertEquals(nested(1), r.deserialize(ByteBuffer.wrap(bytes)));
        WeakReference<byte[]> frame = new WeakReference<>(bytes);
        bytes = null;
        for (int i = 0; i < 20 && frame.get() != null; i++) {
            System.gc();
        }
        assertNull(frame.get(), "the thread's pooled reader still holds the frame it read");
    }

    @Test
    void theHostileFrameFailsAtItsEndThenAGoodOneReads() {
        SerializerRegistry r = registry();
        for (int i = 0; i < 3; i++) {
            DeserializationException e = assertThrows(DeserializationException.class,
                    () -> r.deserialize(ByteBuffer.wrap(hostile(r))));
            assertEquals(true, e.getMessage().contains("offset"), e.getMessage());
            assertEquals(nested(i), r.deserialize(r.serializeToFrame(nested(i))));
        }
    }
}
