package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import serreg.types.OpaqueValue;
import serreg.wire.FrameReader;

/**
 * Frames decoded where they lie (a frame without OOB buffers read without a key: no views of
 * it) and the short way of nested values of the class met last: each must read what the
 * general path reads, wherever the frame sits and whatever its buffer, and refuse what it refuses.
 */
class ReadInPlaceTest {
    record Pair(long a, String b) {
    }

    record Other(long a) {
    }

    /** Pair as [a, b]. */
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

    /** Other as [a, padding] (a payload of 17 bytes or more: an ext 8 header, as Pair's). */
    static final class OtherSerializer extends MsgpackSerializer<Other> {
        OtherSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Other value, InBandWriter out) {
            out.writeArrayHeader(2).writeLong(value.a()).writeString("padding-padding");
        }

        @Override
        protected Other read(InBandReader in) {
            in.readArrayHeader(2, "Other");
            Other o = new Other(in.readLong());
            in.readString();
            return o;
        }
    }

    private static SerializerRegistry registry() {
        SerializerRegistry registry = new SerializerRegistry();
        registry.registerSerializer("test.Pair", Pair.class, new PairSerializer(registry));
        registry.registerSerializer("test.Other", Other.class, new OtherSerializer(registry));
        return registry;
    }

    private static byte[] frame(SerializerRegistry registry, Object value) {
        ByteBuffer b = registry.serializeToFrame(value);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static List<Object> mixed() {
        List<Object> value = new ArrayList<>();
        for (long i = 0; i < 20; i++) {
            value.add(i % 5 == 4 ? new Other(i) : new Pair(i, "label of pair " + i));
        }
        value.add(List.of(new Pair(-1, "inside a list"), "text", 2.5));
        return value;
    }

    @Test
    void aFrameDecodesTheSameWhereverItSitsAndWhateverItsBuffer() {
        SerializerRegistry registry = registry();
        List<Object> value = mixed();
        byte[] f = frame(registry, value);
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            ByteBuffer heap = ByteBuffer.allocate(f.length + 12);
            heap.position(7);
            heap.put(f).put(new byte[5]); // other data after the frame
            heap.position(7).order(order);
            assertEquals(value, registry.deserialize(heap), "heap, at 7, " + order);
            assertEquals(7, heap.position(), "the caller's position is left alone");
            assertEquals(value, registry.deserialize(heap.asReadOnlyBuffer().position(7).order(order)), "read-only " + order);
            ByteBuffer direct = ByteBuffer.allocateDirect(f.length + 3);
            direct.position(3);
            direct.put(f).position(3).order(order);
            assertEquals(value, registry.deserialize(direct), "direct, at 3, " + order);
        }
    }

    @Test
    void checkAgreesWithReadOnEveryFrame() {
        SerializerRegistry registry = registry();
        byte[] f = frame(registry, mixed());
        ByteBuffer at = ByteBuffer.allocate(f.length + 4).position(4).put(f).position(4);
        assertEquals(0, FrameReader.check(at, Limits.DEFAULT));
        ByteBuffer withBuffers = new SerializationResult(ByteBuffer.wrap(new byte[9]),
                List.of(ByteBuffer.wrap(new byte[3]), ByteBuffer.wrap(new byte[70]))).toFrame();
        assertEquals(2, FrameReader.check(withBuffers, Limits.DEFAULT));
        for (int index : new int[] {0, 4, 5, 6, 8, 12, 16, 24}) {
            byte[] broken = f.clone();
            broken[index] ^= 0x41;
            SerregException byRead = assertThrows(SerregException.class, () -> FrameReader.read(ByteBuffer.wrap(broken)));
            SerregException byCheck = assertThrows(SerregException.class,
                    () -> FrameReader.check(ByteBuffer.wrap(broken).order(ByteOrder.LITTLE_ENDIAN), Limits.DEFAULT));
            assertEquals(byRead.getClass(), byCheck.getClass(), "byte " + index);
            assertEquals(byRead.getMessage(), byCheck.getMessage(), "byte " + index);
        }
    }

    @Test
    void aNestedValueOfAnotherClassOrUnknownHashLeavesTheShortWay() {
        SerializerRegistry writer = registry();
        List<Object> value = mixed();
        byte[] f = frame(writer, value);
        SerializerRegistry reader = SerializerRegistry.empty();
        reader.registerModule(new serreg.standard.StandardSerializers());
        reader.registerSerializer("test.Pair", Pair.class, new PairSerializer(reader));
        List<?> back = (List<?>) reader.deserialize(ByteBuffer.wrap(f));
        for (int i = 0; i < 20; i++) {
            if (i % 5 == 4) {
                assertInstanceOf(OpaqueValue.class, back.get(i), "unknown class ID at " + i);
            } else {
                assertEquals(value.get(i), back.get(i));
            }
        }
        assertEquals(f.length, frame(reader, back).length, "written back the same size");
        assertEquals(java.util.Arrays.toString(f), java.util.Arrays.toString(frame(reader, back)), "and the same bytes");
    }

    @Test
    void untrustedModeRefusesTheSecondClassAfterAnAllowedFirst() {
        SerializerRegistry registry = registry();
        byte[] f = frame(registry, mixed());
        registry.setTrusted(false);
        registry.allowClassIds("test.Pair");
        UntrustedClassIdException e = assertThrows(UntrustedClassIdException.class,
                () -> registry.deserialize(ByteBuffer.wrap(f)));
        assertTrue(e.getMessage().contains("test.Other"), e.getMessage());
    }

    @Test
    void anExt8WhoseLengthRunsPastTheEndIsRefusedWithItsOffset() {
        SerializerRegistry registry = registry();
        List<Object> value = List.of(new Pair(1, "first pair label"), new Pair(2, "second pair label"));
        byte[] f = frame(registry, value);
        // The second value's ext 8 header: its length byte made larger than what follows.
        int second = -1;
        for (int i = f.length - 1; i > 32; i--) {
            if ((f[i] & 0xff) == 0xc7 && f[i + 2] == 0) {
                second = i;
                break;
            }
        }
        byte[] broken = f.clone();
        broken[second + 1] = (byte) 0xf0;
        DeserializationException e = assertThrows(DeserializationException.class,
                () -> registry.deserialize(ByteBuffer.wrap(broken)));
        assertTrue(e.getMessage().contains("runs past the end"), e.getMessage());
        assertEquals(second, e.offset(), "the offset of the ext header in the frame");
    }
}
