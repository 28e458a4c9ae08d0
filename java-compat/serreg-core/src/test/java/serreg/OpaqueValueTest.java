package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;

/** Values Java cannot read stay byte-identical and refuse to show their contents. */
class OpaqueValueTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static byte[] vector(String name) throws Exception {
        return TestFiles.read(TestFiles.vectors("python").resolve(name + ".frame"));
    }

    @Test
    void pickle5ValueIsOpaqueAndNamesItsClassId() throws Exception {
        byte[] bytes = vector("pickle5_dataclass");
        OpaqueValue value = (OpaqueValue) REGISTRY.deserialize(TestFiles.direct(bytes));
        assertEquals("serreg.pickle5", value.classId());
        OpaqueValueException e = assertThrows(OpaqueValueException.class, value::contents);
        assertTrue(e.getMessage().contains("'serreg.pickle5'"), e.getMessage());
        assertArrayEquals(bytes, TestFiles.bytes(REGISTRY.serialize(value).toFrame()));
    }

    @Test
    void implicitStructsValueIsOpaqueAndNamesItsClassId() {
        byte[] bytes = TestFrames.pyobjectsFrame();
        OpaqueValue value = (OpaqueValue) REGISTRY.deserialize(TestFiles.direct(bytes));
        assertEquals("serreg.pyobjects", value.classId());
        assertEquals(ClassIdHash.of("serreg.pyobjects"), value.classIdHash());
        OpaqueValueException e = assertThrows(OpaqueValueException.class, value::contents);
        assertTrue(e.getMessage().contains("'serreg.pyobjects'"), e.getMessage());
        assertArrayEquals(bytes, TestFiles.bytes(REGISTRY.serialize(value).toFrame()));
    }

    @Test
    void unknownClassIdIsOpaqueWithItsBuffersAndNamesTheHash() throws Exception {
        byte[] bytes = vector("unknown_class_id");
        OpaqueValue value = (OpaqueValue) REGISTRY.deserialize(TestFiles.direct(bytes));
        assertNull(value.classId());
        assertEquals(1, value.outOfBand().size());
        OpaqueValueException e = assertThrows(OpaqueValueException.class, value::contents);
        assertTrue(e.getMessage().contains(ClassIdHash.of("python.only.Unshared").toHex()), e.getMessage());
        assertArrayEquals(bytes, TestFiles.bytes(REGISTRY.serialize(value).toFrame()));
    }

    @Test
    void pickleBuffersAreCountedSoLaterValuesGetTheirOwn() throws Exception {
        List<?> value = (List<?>) REGISTRY.deserialize(TestFiles.direct(vector("pickle5_with_buffer_then_array")));
        assertEquals(1, ((OpaqueValue) value.get(0)).outOfBand().size());
        assertEquals(2, ((serreg.types.NDArray) value.get(1)).data().remaining());
    }

    @Test
    void nestedUnknownValueFollowedByBuffersIsAClearError() {
        SerializationResult unknown = new SerializationResult(concat(ClassIdHash.of("nobody.knows").toBytes(), new byte[] {(byte) 0xc0}));
        OpaqueValue opaque = (OpaqueValue) REGISTRY.deserialize(unknown);
        List<Object> list = List.of(opaque, serreg.types.PyByteArray.of(new byte[] {1}));
        ByteBuffer frame = REGISTRY.serializeToFrame(list);
        DeserializationException e = assertThrows(DeserializationException.class, () -> REGISTRY.deserialize(frame));
        assertTrue(e.getMessage().contains(ClassIdHash.of("nobody.knows").toHex()), e.getMessage());
        assertEquals(List.of("list"), e.classIdPath());
        // Without buffers after it, a nested unknown value is unambiguous and passes through.
        ByteBuffer alone = REGISTRY.serializeToFrame(List.of(opaque, 1L));
        assertArrayEquals(TestFiles.bytes(alone), TestFiles.bytes(REGISTRY.serializeToFrame(REGISTRY.deserialize(alone))));
    }

    private static ByteBuffer concat(byte[] a, byte[] b) {
        return ByteBuffer.allocate(a.length + b.length).put(a).put(b).flip();
    }
}
