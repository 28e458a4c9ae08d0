package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import serreg.fixture.Describe;
import serreg.fixture.JavaVectors;
import serreg.fixture.Main;
import serreg.types.NumpyScalar;
import serreg.wire.ClassIdHash;

/** Every type of the mapping table goes Java -> frame -> Java with the same class and value. */
class RoundTripTest {
    private static final SerializerRegistry REGISTRY = Main.fixtureRegistry();
    private static final BufferAllocator ALLOCATOR = new RootAllocator();

    @AfterAll
    static void close() {
        ALLOCATOR.close();
    }

    @TestFactory
    Stream<DynamicTest> everyJavaVectorRoundTrips() {
        return JavaVectors.all().stream().filter(v -> v.pythonError() == null).map(v -> DynamicTest.dynamicTest(v.name(), () -> {
            Object value = v.value().apply(ALLOCATOR);
            ByteBuffer frame = REGISTRY.serializeToFrame(value);
            Object back = REGISTRY.deserialize(TestFiles.direct(frame));
            try {
                assertEquals(value == null ? null : value.getClass(), back == null ? null : back.getClass());
                if (value instanceof byte[] bytes) {
                    assertArrayEquals(bytes, (byte[]) back);
                } else if (value instanceof AutoCloseable) {
                    assertEquals(Describe.of(value), Describe.of(back));
                } else {
                    assertEquals(value, back);
                }
                assertArrayEquals(TestFiles.bytes(frame), TestFiles.bytes(REGISTRY.serializeToFrame(back)));
            } finally {
                for (Object o : new Object[] {value, back}) {
                    if (o instanceof AutoCloseable c) {
                        c.close();
                    }
                }
            }
        }));
    }

    @Test
    void widthsSurvive() {
        for (Object v : new Object[] {(byte) 1, (short) 1, 1, 1L, 1.0f, 1.0}) {
            assertEquals(v.getClass(), REGISTRY.deserialize(REGISTRY.serializeToFrame(v)).getClass());
        }
    }

    @Test
    void integersUseTheShortestMsgpackForm() {
        assertArrayEquals(new byte[] {0x05}, inBand(5L));
        assertArrayEquals(new byte[] {(byte) 0xcc, (byte) 0xc8}, inBand(200L));
        assertArrayEquals(new byte[] {(byte) 0xd0, (byte) 0x80}, inBand(-128L));
        assertArrayEquals(new byte[] {(byte) 0xcf, -1, -1, -1, -1, -1, -1, -1, -1}, inBand(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)));
        // 2^64 is a bin of 9 little-endian two's-complement bytes.
        assertArrayEquals(new byte[] {(byte) 0xc4, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1}, inBand(BigInteger.ONE.shiftLeft(64)));
        assertEquals(BigInteger.ONE.shiftLeft(64).negate(), REGISTRY.deserialize(REGISTRY.serializeToFrame(BigInteger.ONE.shiftLeft(64).negate())));
        assertEquals(5L, REGISTRY.deserialize(REGISTRY.serializeToFrame(BigInteger.valueOf(5))), "a small BigInteger is an int");
    }

    @Test
    void float32IsRejectedAsAFloat() {
        ByteBuffer section = ByteBuffer.allocate(13);
        ClassIdHash.of("float").writeTo(section);
        section.put((byte) 0xca).putFloat(1.5f).flip();
        DeserializationException e = assertThrows(DeserializationException.class,
                () -> REGISTRY.deserialize(new SerializationResult(section)));
        assertTrue(e.getMessage().contains("float 32"), e.getMessage());
        assertEquals(List.of("float"), e.classIdPath());
    }

    @Test
    void reservedExtTypesAreRejectedWithTheirOffset() {
        ByteBuffer section = ByteBuffer.allocate(8 + 1 + 3);
        ClassIdHash.of("list").writeTo(section);
        section.put((byte) 0x91).put((byte) 0xd4).put((byte) 5).put((byte) 0).flip();
        ByteBuffer frame = new SerializationResult(section).toFrame();
        DeserializationException e = assertThrows(DeserializationException.class, () -> REGISTRY.deserialize(frame));
        assertTrue(e.getMessage().contains("ext type 5"), e.getMessage());
        assertEquals(32 + 8 + 1, e.offset(), "offset of the ext inside the frame");
    }

    @Test
    void nanosecondsAndLoneSurrogatesAreRefused() {
        assertThrows(SerializationException.class, () -> REGISTRY.serialize(LocalTime.of(1, 2, 3, 1)));
        assertThrows(SerializationException.class, () -> REGISTRY.serialize("bad \ud800"));
    }

    @Test
    void zonedFoldAndScalarNamesRoundTrip() {
        ZonedDateTime later = ZonedDateTime.ofLocal(java.time.LocalDateTime.of(2021, 11, 7, 1, 30),
                ZoneId.of("America/New_York"), null).withLaterOffsetAtOverlap();
        assertEquals(later, REGISTRY.deserialize(REGISTRY.serializeToFrame(later)));
        assertEquals(later.withEarlierOffsetAtOverlap(), REGISTRY.deserialize(REGISTRY.serializeToFrame(later.withEarlierOffsetAtOverlap())));
        NumpyScalar nan16 = NumpyScalar.float16Bits(0x7e01);
        assertEquals(nan16, REGISTRY.deserialize(REGISTRY.serializeToFrame(nan16)));
    }

    private static byte[] inBand(Object value) {
        byte[] section = TestFiles.bytes(REGISTRY.serialize(value).inBand());
        return java.util.Arrays.copyOfRange(section, 8, section.length);
    }
}
