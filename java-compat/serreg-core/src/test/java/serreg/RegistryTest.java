package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import serreg.wire.ClassIdHash;

class RegistryTest {
    record Celsius(double degrees) {
    }

    /** Writes the value as a str with a prefix, so tests can tell which serializer ran. */
    static final class Tagged implements Serializer<Celsius> {
        private final String tag;

        Tagged(String tag) {
            this.tag = tag;
        }

        @Override
        public SerializationResult serialize(Celsius value) {
            return new SerializationResult(ByteBuffer.wrap((tag + ":" + value.degrees()).getBytes()));
        }

        @Override
        public Celsius deserialize(ByteBuffer inBand, Iterator<ByteBuffer> oob) {
            String text = java.nio.charset.StandardCharsets.UTF_8.decode(inBand).toString();
            assertTrue(text.startsWith(tag + ":"), text);
            return new Celsius(Double.parseDouble(text.substring(tag.length() + 1)));
        }
    }

    @Test
    void newestClassIdIsUsedOlderStillDecodesUnregisterRestores() {
        SerializerRegistry r = new SerializerRegistry();
        r.registerSerializer("temp.v1", Celsius.class, new Tagged("v1"));
        ByteBuffer v1Frame = r.serializeToFrame(new Celsius(20));
        r.registerSerializer("temp.v2", Celsius.class, new Tagged("v2"));
        assertEquals("temp.v2", r.getClassId(Celsius.class));
        ByteBuffer v2Frame = r.serializeToFrame(new Celsius(21));
        assertEquals(ClassIdHash.of("temp.v2"), ClassIdHash.readFrom(v2Frame, 32));
        assertEquals(new Celsius(20), r.deserialize(v1Frame));
        assertEquals(new Celsius(21), r.deserialize(v2Frame));
        r.unregisterSerializer("temp.v2");
        assertEquals("temp.v1", r.getClassId(Celsius.class));
        assertEquals(ClassIdHash.of("temp.v1"), ClassIdHash.readFrom(r.serializeToFrame(new Celsius(1)), 32));
        assertInstanceOf(serreg.types.OpaqueValue.class, r.deserialize(v2Frame), "an unregistered ID reads as opaque");
    }

    @Test
    void idBoundToAnotherClassIsRefused() {
        SerializerRegistry r = new SerializerRegistry();
        r.registerSerializer("temp", Celsius.class, new Tagged("a"));
        RegistrationException e = assertThrows(RegistrationException.class,
                () -> r.registerSerializer("temp", String.class, new StringAsBytes()));
        assertTrue(e.getMessage().contains("already bound"), e.getMessage());
        r.registerSerializer("temp", Celsius.class, new Tagged("b"));
        assertEquals(new Celsius(3), r.deserialize(r.serializeToFrame(new Celsius(3))), "same class: serializer replaced");
    }

    static final class StringAsBytes implements Serializer<String> {
        @Override
        public SerializationResult serialize(String value) {
            return new SerializationResult(ByteBuffer.wrap(value.getBytes()));
        }

        @Override
        public String deserialize(ByteBuffer inBand, Iterator<ByteBuffer> oob) {
            return java.nio.charset.StandardCharsets.UTF_8.decode(inBand).toString();
        }
    }

    @Test
    void hashCollisionIsRefused() {
        // A hash function with collisions stands in for SHA-256, where none is known.
        SerializerRegistry r = new SerializerRegistry(id -> ClassIdHash.fromLong(id.length()));
        r.registerSerializer("abc", Celsius.class, new Tagged("a"));
        RegistrationException e = assertThrows(RegistrationException.class,
                () -> r.registerSerializer("xyz", String.class, new StringAsBytes()));
        assertTrue(e.getMessage().contains("'abc'") && e.getMessage().contains("'xyz'"), e.getMessage());
    }

    @Test
    void lookupIsByExactClassThenCollectionInterfaces() {
        SerializerRegistry r = new SerializerRegistry();
        assertEquals("list", r.getClassId(java.util.ArrayList.class));
        assertEquals(List.of(1L, 2L), r.deserialize(r.serializeToFrame(List.of(1L, 2L))));
        assertEquals(Map.of("k", 1L), r.deserialize(r.serializeToFrame(Map.of("k", 1L))));
        assertThrows(SerializationException.class, () -> r.getClassId(java.util.LinkedList.class));
        SerializationException e = assertThrows(SerializationException.class, () -> r.serialize(new Object()));
        assertTrue(e.getMessage().contains("java.lang.Object"), e.getMessage());
    }

    @Test
    void getSerializerByIdAndClass() {
        SerializerRegistry r = new SerializerRegistry();
        assertSame(r.getSerializer("tuple"), r.getSerializer(serreg.types.Tuple.class));
        UnknownClassIdException e = assertThrows(UnknownClassIdException.class, () -> r.getSerializer("nope"));
        assertEquals("nope", e.classId());
        assertThrows(UnknownClassIdException.class, () -> r.unregisterSerializer("nope"));
    }

    @Test
    void nestedValuesUseExt0AndShareOneOobIterator() {
        SerializerRegistry r = new SerializerRegistry();
        Object value = List.of(serreg.types.PyByteArray.of(new byte[] {1}), serreg.types.Tuple.of((short) 2),
                serreg.types.PyByteArray.of(new byte[] {3, 4}));
        SerializationResult result = r.serialize(value);
        assertEquals(2, result.outOfBand().size());
        byte[] inBand = TestFiles.bytes(result.inBand());
        assertEquals((byte) 0x93, inBand[8], "a list of three is a fixarray");
        // bytearray inside a list: ext 8 header (0xc7, length 9, type 0), then ClassIDHash + nil.
        assertEquals((byte) 0xc7, inBand[9]);
        assertEquals(9, inBand[10]);
        assertEquals(0, inBand[11]);
        assertEquals(ClassIdHash.of("bytearray"), ClassIdHash.readFrom(ByteBuffer.wrap(inBand), 12));
        assertEquals((byte) 0xc0, inBand[20]);
        assertEquals(value, r.deserialize(TestFiles.direct(result.toFrame())));
    }
}
