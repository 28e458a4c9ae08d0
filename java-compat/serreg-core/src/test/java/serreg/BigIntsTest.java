package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import serreg.wire.ClassIdHash;

/**
 * Big ints (class ID {@code int} beyond 64 bits: a bin of two's-complement little-endian bytes,
 * docs/FORMAT.md section 6.1) read in time linear in their bytes: never turned into decimal digits,
 * which costs time quadratic in their length, to name one in a refusal; a bin holding a value of
 * the long range reads as a Long, as a msgpack int does.
 */
class BigIntsTest {
    record Pair(String left, long right) {
    }

    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    static {
        REGISTRY.registerStruct(Pair.class, "t.Pair");
    }

    /** The bin of a big int: {@code n} little-endian bytes, the top bit of the last set (a negative value). */
    private static byte[] bigIntBin(int n) {
        byte[] bytes = new byte[n];
        bytes[0] = 0x39;
        bytes[n - 1] = (byte) 0x80;
        return TestFrames.msgpack(p -> p.packBinaryHeader(n).writePayload(bytes));
    }

    @Test
    void aBinHoldingAValueOfTheLongRangeReadsAsALong() {
        byte[] five = TestFrames.msgpack(p -> p.packBinaryHeader(9).writePayload(new byte[] {5, 0, 0, 0, 0, 0, 0, 0, 0}));
        assertEquals(5L, REGISTRY.deserialize(java.nio.ByteBuffer.wrap(TestFrames.rawFrame("int", five))));
        byte[] minusOne = TestFrames.msgpack(p -> p.packBinaryHeader(3).writePayload(new byte[] {-1, -1, -1}));
        assertEquals(-1L, REGISTRY.deserialize(java.nio.ByteBuffer.wrap(TestFrames.rawFrame("int", minusOne))));
        byte[] twoTo64 = TestFrames.msgpack(p -> p.packBinaryHeader(9).writePayload(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 1}));
        assertEquals(BigInteger.ONE.shiftLeft(64), REGISTRY.deserialize(java.nio.ByteBuffer.wrap(TestFrames.rawFrame("int", twoTo64))));
    }

    @Test
    void aBigIntOfAMegabyteInAnIntFieldIsRefusedByItsSizeNotItsDigits() {
        // A struct instance (ext 1) whose int64 field holds a nested big int of 1,000,000 bytes: naming it in
        // decimal took about 11 s per read (BigInteger.toString); now its bit length names it.
        byte[] definition = TestFrames.msgpack(p -> {
            p.packArrayHeader(1).packArrayHeader(2).packString("t.Pair").packArrayHeader(2);
            p.packArrayHeader(2).packString("left").packString("str");
            p.packArrayHeader(2).packString("right").packString("int64");
        });
        byte[] nested = TestFrames.concat(ClassIdHash.of("int").toBytes(), bigIntBin(1_000_000));
        byte[] payload = TestFrames.concat(TestFrames.msgpack(p -> p.packArrayHeader(3).packInt(0).packString("a")),
                TestFrames.msgpack(p -> p.packExtensionTypeHeader((byte) 0, nested.length)), nested);
        byte[] instance = TestFrames.concat(TestFrames.msgpack(p -> p.packArrayHeader(1).packExtensionTypeHeader((byte) 1,
                payload.length)), payload);
        byte[] frame = TestFrames.rawFrame("serreg.structs", TestFrames.concat(definition, ClassIdHash.of("list").toBytes(), instance));
        for (boolean trusted : new boolean[] {true, false}) {
            long started = System.nanoTime();
            DeserializationException e = assertInstanceOf(DeserializationException.class,
                    Hostile.decode(REGISTRY, java.nio.ByteBuffer.wrap(frame), "a big int in an int64 field", trusted));
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(e.getMessage().contains("t.Pair.right: the frame holds BigInteger of 7999999 bits in a field of type"
                    + " int64"), e.getMessage());
            assertTrue(millis < 2_000, millis + " ms");
        }
    }
}
