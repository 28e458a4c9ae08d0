package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import serreg.numpy.NumpySerializers;
import serreg.standard.StandardSerializers;
import serreg.types.NumpyScalar;
import serreg.types.Tuple;
import serreg.wire.ClassIdHash;

/**
 * What a registry starts with: {@code new SerializerRegistry()} registers every SerializerModule
 * found through ServiceLoader (here: the standard types and numpy of serreg-core, and the
 * MarkerModule this module's test resources list; serreg-arrow is not on this class path);
 * {@code empty()} registers nothing. Also the typed {@code deserialize} and the
 * {@code serializeCanonical} hook.
 */
class ModulesTest {
    /** A class only the test module below knows. */
    record Marker(String text) {
    }

    static class MarkerSerializer implements Serializer<Marker> {
        @Override
        public SerializationResult serialize(Marker value) {
            return new SerializationResult(ByteBuffer.wrap(value.text().getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        public Marker deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
            return new Marker(StandardCharsets.UTF_8.decode(inBand).toString());
        }
    }

    /** Listed in src/test/resources/META-INF/services/serreg.SerializerModule: found, not named. */
    public static final class MarkerModule implements SerializerModule {
        @Override
        public void register(SerializerRegistry registry) {
            registry.registerSerializer("test.marker", Marker.class, new MarkerSerializer());
        }
    }

    @Test
    void theDefaultRegistryHasEveryModuleOnTheClassPath() {
        SerializerRegistry r = new SerializerRegistry();
        for (String id : List.of("None", "str", "dict", "datetime", "serreg.pickle5", "serreg.error", "numpy.ndarray",
                "numpy.int32", "test.marker")) {
            assertTrue(r.isRegistered(id), id);
        }
        assertFalse(r.isRegistered("ArrowTable"), "serreg-arrow is not on serreg-core's test class path");
        assertEquals(new Marker("m"), r.deserialize(r.serializeToFrame(new Marker("m"))));
        assertTrue(SerializerRegistry.getDefault().isRegistered("test.marker"));
    }

    @Test
    void anEmptyRegistryHasNothingUntilModulesAreRegistered() {
        SerializerRegistry r = SerializerRegistry.empty();
        assertFalse(r.isRegistered("str"));
        SerializationException e = assertThrows(SerializationException.class, () -> r.serialize("x"));
        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
        r.registerModule(new StandardSerializers());
        assertEquals("x", r.deserialize(r.serializeToFrame("x")));
        assertFalse(r.isRegistered("numpy.int32"));
        r.registerModule(new NumpySerializers());
        assertEquals(7, r.deserialize(r.serializeToFrame(7)));
    }

    @Test
    void aModuleThatFailsIsNamed() {
        SerializerModule broken = new SerializerModule() {
            @Override
            public void register(SerializerRegistry registry) {
                throw new IllegalStateException("no luck");
            }

            @Override
            public String name() {
                return "test.broken";
            }
        };
        RegistrationException e = assertThrows(RegistrationException.class, () -> SerializerRegistry.empty().registerModule(broken));
        assertTrue(e.getMessage().contains("test.broken") && e.getMessage().contains("no luck"), e.getMessage());
    }

    @Test
    void serregModulesComeFirst() {
        assertTrue(new StandardSerializers().order() < new NumpySerializers().order());
        assertTrue(new NumpySerializers().order() < new MarkerModule().order());
    }

    @Test
    void typedDeserializeReturnsATOrSaysWhatItGot() {
        SerializerRegistry r = new SerializerRegistry();
        String s = r.deserialize(r.serializeToFrame("text"), String.class);
        assertEquals("text", s);
        long n = r.deserialize(r.serializeToFrame(5L), long.class);
        assertEquals(5L, n);
        assertEquals(Tuple.of("a"), r.deserialize(r.serializeToFrame(Tuple.of("a")), Tuple.class));
        assertEquals(List.of(1L), r.deserialize(r.serializeToFrame(List.of(1L)), List.class));
        assertNull(r.deserialize(r.serializeToFrame(null), String.class));
        DeserializationException wrong = assertThrows(DeserializationException.class,
                () -> r.deserialize(r.serializeToFrame(List.of(1L)), String.class));
        assertTrue(wrong.getMessage().contains("java.util.ArrayList") && wrong.getMessage().contains("java.lang.String"),
                wrong.getMessage());
        DeserializationException none = assertThrows(DeserializationException.class,
                () -> r.deserialize(r.serializeToFrame(null), long.class));
        assertTrue(none.getMessage().contains("null"), none.getMessage());
        DeserializationException scalar = assertThrows(DeserializationException.class,
                () -> r.deserialize(r.serializeToFrame(new NumpyScalar("float64", 1.0)), Double.class));
        assertTrue(scalar.getMessage().contains(NumpyScalar.class.getName()), scalar.getMessage());
        DeserializationException opaque = assertThrows(DeserializationException.class,
                () -> SerializerRegistry.empty().deserialize(r.serializeToFrame("x"), String.class));
        assertTrue(opaque.getMessage().contains("OpaqueValue") && opaque.getMessage().contains(ClassIdHash.of("str").toHex()),
                opaque.getMessage());

        byte[] key = new byte[32];
        ByteBuffer signed = r.serializeToFrame("signed", key);
        assertEquals("signed", r.deserialize(signed.duplicate(), key, String.class));
        assertThrows(DeserializationException.class, () -> r.deserialize(signed.duplicate(), key, Long.class));
        assertThrows(SignatureException.class, () -> r.deserialize(r.serializeToFrame("unsigned"), key, String.class));
    }

    @Test
    void canonicalFormOfOtherTypesComesFromTheSerializerHook() {
        SerializerRegistry r = SerializerRegistry.empty();
        r.registerModule(new StandardSerializers());
        r.registerSerializer("test.marker", Marker.class, new MarkerSerializer());
        CanonicalFormException e = assertThrows(CanonicalFormException.class, () -> Serreg.digest(r, new Marker("m")));
        assertTrue(e.getMessage().contains("'test.marker'") && e.getMessage().contains("serializeCanonical"), e.getMessage());

        r.registerSerializer("test.marker", Marker.class, new MarkerSerializer() {
            @Override
            public SerializationResult serializeCanonical(Marker value) {
                return serialize(new Marker(value.text().toLowerCase(java.util.Locale.ROOT)));
            }
        });
        assertArrayEquals(Serreg.digest(r, List.of(new Marker("ABC"))), Serreg.digest(r, List.of(new Marker("abc"))));
        Object back = r.deserialize(Serreg.serializeCanonical(r, new Marker("ABC")).toFrame());
        assertEquals(new Marker("abc"), back);
        assertSame(Marker.class, back.getClass());
    }
}
