package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static serreg.TestFrames.onSmallStack;
import static serreg.TestFrames.rawFrame;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;

/**
 * Untrusted mode (docs/FORMAT.md section 4.4), with the meaning, allow-list and default limits of
 * Python's: only allow-listed class IDs are decoded, at every nesting level, and nothing but a
 * DeserializationException leaves deserialize, whatever the bytes and the thread's stack.
 */
class UntrustedModeTest {
    private static byte[] python(String name) throws IOException {
        return TestFiles.read(TestFiles.vectors("python").resolve(name));
    }

    @Test
    void theDefaultAllowListIsPythonsDataClassIds() {
        SerializerRegistry registry = new SerializerRegistry();
        assertTrue(registry.trusted(), "a new registry is trusted, as Python's");
        DataClassIds.check(registry.allowedClassIds());
        assertFalse(registry.allowedClassIds().contains("serreg.pickle5"));
        assertFalse(registry.allowedClassIds().contains("serreg.dataclass"));
        assertFalse(registry.allowedClassIds().contains("serreg.pyobjects"));
        assertEquals(Limits.DEFAULT.memoryPerByte(), 16);
        assertEquals(Limits.DEFAULT.memoryAllowance(), 32L << 20);
        assertEquals(Limits.DEFAULT.maxDepth(), 100);
        assertEquals(Limits.DEFAULT.maxBuffers(), 100_000);
        assertEquals(Limits.DEFAULT.maxFrameSize(), 4L << 30);
    }

    /** The 51 class IDs of Python's serreg.standard.DATA_CLASS_IDS (tests/test_trust.py checks the two lists are equal). */
    private static final class DataClassIds {
        static void check(java.util.Set<String> ids) {
            assertEquals(51, ids.size(), ids.toString());
            for (String id : List.of("None", "list", "dict", "tuple", "decimal", "serreg.error", "numpy.ndarray",
                    "numpy.complex128", "ArrowTable", "ArrowRecordBatch")) {
                assertTrue(ids.contains(id), id);
            }
        }
    }

    @Test
    void pickledValuesAreKeptOpaqueWhenTrustedAndRefusedWhenNot() throws IOException {
        SerializerRegistry registry = new SerializerRegistry();
        for (String name : List.of("pickle5_dataclass.frame", "pickle5_in_list.frame", "pickle5_with_buffer_then_array.frame")) {
            Object trusted = registry.deserialize(ByteBuffer.wrap(python(name)), true);
            assertTrue(trusted instanceof OpaqueValue || trusted instanceof List<?>, name + ": " + trusted);
            UntrustedClassIdException e = assertThrows(UntrustedClassIdException.class,
                    () -> registry.deserialize(ByteBuffer.wrap(python(name)), false), name);
            assertEquals("serreg.pickle5", e.classId(), name);
            assertTrue(e.getMessage().contains("untrusted"), e.getMessage());
        }
    }

    @Test
    void unknownClassIdsAreRefusedAtEveryLevel() throws IOException {
        SerializerRegistry registry = new SerializerRegistry();
        assertInstanceOf(OpaqueValue.class, registry.deserialize(ByteBuffer.wrap(python("unknown_class_id.frame"))));
        UntrustedClassIdException top = assertThrows(UntrustedClassIdException.class,
                () -> registry.deserialize(ByteBuffer.wrap(python("unknown_class_id.frame")), false));
        assertNull(top.classId());
        // Nested inside a list, and inside a tuple (read in place) inside a list.
        byte[] unknown = ClassIdHash.of("example.Unknown").toBytes();
        byte[] inner = TestFrames.concat(unknown, new byte[] {(byte) 0xc0});
        byte[] list = rawFrame("list", TestFrames.msgpack(p -> {
            p.packArrayHeader(2).packLong(1);
            p.packExtensionTypeHeader((byte) 0, inner.length).writePayload(inner);
        }));
        assertInstanceOf(List.class, registry.deserialize(ByteBuffer.wrap(list)));
        UntrustedClassIdException nested = assertThrows(UntrustedClassIdException.class,
                () -> registry.deserialize(ByteBuffer.wrap(list), false));
        assertTrue(nested.offset() > 0, nested.getMessage());
        // A registry untrusted by default reads an allowed class ID in place (a MsgpackSerializer) inside a list.
        SerializerRegistry narrow = new SerializerRegistry();
        narrow.setTrusted(false);
        byte[] tuple = TestFrames.concat(ClassIdHash.of("tuple").toBytes(), new byte[] {(byte) 0x90});
        byte[] listOfTuple = rawFrame("list", TestFrames.msgpack(p -> {
            p.packArrayHeader(1);
            p.packExtensionTypeHeader((byte) 0, tuple.length).writePayload(tuple);
        }));
        assertInstanceOf(List.class, narrow.deserialize(ByteBuffer.wrap(listOfTuple)));
        SerializerRegistry onlyLists = SerializerRegistry.empty();
        onlyLists.registerModule(new serreg.standard.StandardSerializers());
        Limits limits = Limits.DEFAULT;
        // A class ID that is registered but not allowed.
        onlyLists.registerSerializer("example.Point", Map.Entry.class, new Serializer<Map.Entry>() {
            @Override
            public SerializationResult serialize(Map.Entry value) {
                return new SerializationResult(ByteBuffer.allocate(0));
            }

            @Override
            public Map.Entry deserialize(ByteBuffer inBand, java.util.Iterator<ByteBuffer> outOfBand) {
                return Map.entry(1, 2);
            }
        });
        byte[] point = rawFrame("example.Point", new byte[0]);
        assertEquals(Map.entry(1, 2), onlyLists.deserialize(ByteBuffer.wrap(point), limits, true));
        UntrustedClassIdException refused = assertThrows(UntrustedClassIdException.class,
                () -> onlyLists.deserialize(ByteBuffer.wrap(point), limits, false));
        assertEquals("example.Point", refused.classId());
        assertTrue(refused.getMessage().contains("allowClassIds"), refused.getMessage());
        onlyLists.allowClassIds("example.Point");
        assertEquals(Map.entry(1, 2), onlyLists.deserialize(ByteBuffer.wrap(point), limits, false));
    }

    @Test
    void codeLoadingClassIdsCannotBeAllowed() {
        SerializerRegistry registry = new SerializerRegistry();
        for (String id : List.of("serreg.pickle5", "serreg.pyobjects", "serreg.dataclass")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.allowClassIds(id));
            assertTrue(e.getMessage().contains("runs code"), e.getMessage());
            assertTrue(e.getMessage().contains("'" + id + "'"), e.getMessage());
            assertFalse(registry.allowedClassIds().contains(id), id);
        }
    }

    @Test
    void implicitStructsAreKeptOpaqueWhenTrustedAndRefusedByNameWhenNot() {
        // serreg.pyobjects (docs/FORMAT.md 10.9) unpickles its classes in Python: refused as serreg.pickle5 is,
        // at the top level and nested, though Java registers no serializer for it.
        SerializerRegistry registry = new SerializerRegistry();
        byte[] frame = TestFrames.pyobjectsFrame();
        OpaqueValue trusted = assertInstanceOf(OpaqueValue.class, registry.deserialize(ByteBuffer.wrap(frame), true));
        assertEquals("serreg.pyobjects", trusted.classId());
        byte[] inList = TestFiles.bytes(registry.serialize(List.of(1, trusted)).toFrame());
        for (byte[] bytes : List.of(frame, inList)) {
            UntrustedClassIdException e = assertThrows(UntrustedClassIdException.class,
                    () -> registry.deserialize(ByteBuffer.wrap(bytes), false));
            assertEquals("serreg.pyobjects", e.classId());
            assertTrue(e.getMessage().contains("(class ID 'serreg.pyobjects')"), e.getMessage());
            assertTrue(e.getMessage().contains("unpickling"), e.getMessage());
        }
    }

    @Test
    void aDataclassFrameIsRefusedByName() {
        SerializerRegistry registry = new SerializerRegistry();
        byte[] frame = rawFrame("serreg.dataclass", new byte[] {(byte) 0x92, (byte) 0xa1, 'm', (byte) 0xc0});
        assertInstanceOf(OpaqueValue.class, registry.deserialize(ByteBuffer.wrap(frame), true));
        UntrustedClassIdException e = assertThrows(UntrustedClassIdException.class,
                () -> registry.deserialize(ByteBuffer.wrap(frame), false));
        assertEquals("serreg.dataclass", e.classId());
        assertTrue(e.getMessage().contains("imports the module"), e.getMessage());
    }

    @Test
    void theGoldenDataFramesDecodeUntrusted() {
        SerializerRegistry registry = new SerializerRegistry();
        int decoded = 0;
        for (Map.Entry<String, byte[]> golden : Hostile.goldenFrames()) {
            String name = golden.getKey();
            if (name.contains("pickle5") || name.contains("unknown_class_id") || name.contains("error_frame")
                    || name.startsWith("signed/") || name.contains("arrow") || name.contains("nested_mixed")) {
                continue; // Python-only, not data (the error frame raises), or needs serreg-arrow
            }
            Object value;
            try {
                value = registry.deserialize(ByteBuffer.wrap(golden.getValue()), false);
            } catch (UntrustedClassIdException e) {
                // example.Point (a user's class ID, registered only by the fixture) is rightly refused.
                assertTrue(e.getMessage().contains(ClassIdHash.of("example.Point").toHex()), name + ": " + e.getMessage());
                continue;
            } catch (DeserializationException e) {
                throw new AssertionError(name + ": " + e.getMessage(), e);
            }
            Hostile.release(value);
            decoded++;
        }
        assertTrue(decoded > 60, decoded + " golden frames");
    }

    @Test
    void aNestedDeserializeNeverWidensTrust() {
        // A serializer that calls deserialize itself joins the outer call: an untrusted outer call
        // stays untrusted inside it.
        SerializerRegistry registry = new SerializerRegistry();
        byte[] pickled = rawFrame("example.Unknown", new byte[] {(byte) 0xc0});
        registry.registerSerializer("example.Envelope", Map.Entry.class, new Serializer<Map.Entry>() {
            @Override
            public SerializationResult serialize(Map.Entry value) {
                return new SerializationResult(ByteBuffer.allocate(0));
            }

            @Override
            public Map.Entry deserialize(ByteBuffer inBand, java.util.Iterator<ByteBuffer> outOfBand) {
                return Map.entry("inner", registry.deserialize(ByteBuffer.wrap(pickled), true));
            }
        });
        registry.allowClassIds("example.Envelope");
        byte[] envelope = rawFrame("example.Envelope", new byte[0]);
        assertInstanceOf(Map.Entry.class, registry.deserialize(ByteBuffer.wrap(envelope), true));
        assertThrows(UntrustedClassIdException.class, () -> registry.deserialize(ByteBuffer.wrap(envelope), false));
    }

    @Test
    void unlimitedDepthOnASmallStackIsAnErrorNotACrash() throws InterruptedException {
        // maxDepth switched off, a 256 KiB thread stack, 100,000 nested tuples (1.5 MB): the stack
        // runs out, and deserialize says so with a LimitExceededException (c2967a7: StackOverflowError).
        byte[] frame = TestFrames.nestedTuples(100_000);
        Limits unlimited = Limits.DEFAULT.withMaxDepth(Integer.MAX_VALUE);
        SerializerRegistry registry = new SerializerRegistry();
        for (boolean trusted : new boolean[] {true, false}) {
            Object outcome = onSmallStack(() -> {
                try {
                    return registry.deserialize(ByteBuffer.wrap(frame), unlimited, trusted);
                } catch (DeserializationException e) {
                    return e;
                }
            });
            assertInstanceOf(LimitExceededException.class, outcome, "trusted=" + trusted);
            assertTrue(((Exception) outcome).getMessage().contains("stack"), ((Exception) outcome).getMessage());
        }
        // With the default limits the same frame stops at maxDepth on the small stack as well.
        Object limited = onSmallStack(() -> {
            try {
                return registry.deserialize(ByteBuffer.wrap(frame), false);
            } catch (DeserializationException e) {
                return e;
            }
        });
        assertTrue(((Exception) limited).getMessage().contains("maxDepth"), ((Exception) limited).getMessage());
    }

    @Test
    void theMemoryBudgetIsMemoryAllowancePlusMemoryPerByteTimesTheFrame() {
        assertEquals(32L << 20, Limits.DEFAULT.memoryBudget(0));
        assertEquals((32L << 20) + 16 * 1000, Limits.DEFAULT.memoryBudget(1000));
        assertEquals(Long.MAX_VALUE, Limits.DEFAULT.withMemoryPerByte(Long.MAX_VALUE).memoryBudget(1000));
        assertEquals(Long.MAX_VALUE, Limits.DEFAULT.withMemoryPerByte(Long.MAX_VALUE / 2).memoryBudget(1000));
        assertThrows(IllegalArgumentException.class, () -> Limits.DEFAULT.withMemoryAllowance(-1));
        assertEquals(Limits.DEFAULT, new Limits(4L << 30, 100_000, 100, 1024, 4300));
    }
}
