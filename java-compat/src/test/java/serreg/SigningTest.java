package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import serreg.fixture.Describe;
import serreg.fixture.Main;
import serreg.types.NDArray;
import serreg.wire.ClassIdHash;

/** Signed frames, docs/FORMAT.md section 4.2. */
class SigningTest {
    private static final byte[] KEY = HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    private static final byte[] OTHER_KEY = "another key of 32 bytes, really".getBytes();
    private static final SerializerRegistry REGISTRY = Main.fixtureRegistry();

    private static Object sample() {
        ByteBuffer data = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(7).putInt(8).putInt(9).flip();
        Map<Object, Object> map = new java.util.LinkedHashMap<>();
        map.put("k", 2.5);
        return new ArrayList<>(List.of(1L, "x", new NDArray("<i4", new long[] {3}, 'C', data), map));
    }

    private static byte[] hmac(byte[] key, byte[] data, int length) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        mac.update(data, 0, length);
        return mac.doFinal();
    }

    @Test
    void signedFrameIsTheUnsignedLayoutPlusFlagAndTrailer() throws Exception {
        byte[] unsigned = TestFiles.bytes(REGISTRY.serializeToFrame(sample()));
        SerializationResult result = REGISTRY.serialize(sample(), KEY);
        assertTrue(result.isSigned());
        byte[] signed = TestFiles.bytes(result.toFrame());
        assertEquals(unsigned.length + 32, signed.length);
        assertEquals(signed.length, result.frameLength());
        ByteBuffer header = ByteBuffer.wrap(signed).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x01, header.get(5));
        assertEquals(signed.length, header.getLong(24));
        // Apart from the flag and the total length, the bytes before the trailer are the unsigned frame.
        byte[] body = java.util.Arrays.copyOf(signed, unsigned.length);
        body[5] = 0;
        ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).putLong(24, unsigned.length);
        assertArrayEquals(unsigned, body);
        assertArrayEquals(hmac(KEY, signed, unsigned.length), java.util.Arrays.copyOfRange(signed, unsigned.length, signed.length));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(signed.length, result.writeTo(Channels.newChannel(out)));
        assertArrayEquals(signed, out.toByteArray(), "writeTo and toFrame must give the same signed bytes");
        assertArrayEquals(unsigned, TestFiles.bytes(REGISTRY.serializeToFrame(sample())), "unsigned frames are unchanged");
    }

    @Test
    void signedRoundTripWithTheKeyAndWithoutOne() {
        ByteBuffer frame = TestFiles.direct(REGISTRY.serializeToFrame(sample(), KEY));
        assertEquals(Describe.of(sample()), Describe.of(REGISTRY.deserialize(frame, KEY)));
        assertEquals(Describe.of(sample()), Describe.of(REGISTRY.deserialize(frame)), "no key: the trailer is ignored");
        // Without a key the trailer is not even looked at: a damaged trailer still decodes.
        ByteBuffer damaged = TestFiles.direct(REGISTRY.serializeToFrame(sample(), KEY));
        damaged.put(damaged.limit() - 1, (byte) (damaged.get(damaged.limit() - 1) ^ 0xff));
        assertEquals(Describe.of(sample()), Describe.of(REGISTRY.deserialize(damaged)));
        assertThrows(SignatureException.class, () -> REGISTRY.deserialize(damaged, KEY));
    }

    @Test
    void unsignedWrongKeyAndTruncatedFramesAreRefused() {
        SignatureException unsigned = assertThrows(SignatureException.class,
                () -> REGISTRY.deserialize(REGISTRY.serializeToFrame(sample()), KEY));
        assertTrue(unsigned.getMessage().contains("not signed"), unsigned.getMessage());
        assertEquals(5, unsigned.offset());
        ByteBuffer other = REGISTRY.serializeToFrame(sample(), OTHER_KEY);
        SignatureException wrongKey = assertThrows(SignatureException.class, () -> REGISTRY.deserialize(other, KEY));
        assertTrue(wrongKey.getMessage().contains("another key or altered"), wrongKey.getMessage());
        assertEquals(other.remaining() - 32, wrongKey.offset());
        byte[] signed = TestFiles.bytes(REGISTRY.serializeToFrame(sample(), KEY));
        for (int cut = 0; cut < signed.length; cut++) {
            ByteBuffer truncated = ByteBuffer.wrap(signed, 0, cut);
            assertInstanceOf(FrameFormatException.class, assertThrows(DeserializationException.class,
                    () -> REGISTRY.deserialize(truncated, KEY)), "cut at " + cut);
        }
        // A signed frame followed by other data in a stream: the header says where it ends.
        ByteBuffer followed = ByteBuffer.allocate(signed.length + 5).put(signed).put(new byte[] {1, 2, 3, 4, 5}).flip();
        assertEquals(Describe.of(sample()), Describe.of(REGISTRY.deserialize(followed, KEY)));
    }

    /** Counts decode calls, to show that a refused frame reaches no serializer. */
    static final class Probe implements Serializer<String> {
        final AtomicInteger decoded = new AtomicInteger();

        @Override
        public SerializationResult serialize(String value) {
            return new SerializationResult(ByteBuffer.wrap(value.getBytes()));
        }

        @Override
        public String deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
            decoded.incrementAndGet();
            return java.nio.charset.StandardCharsets.UTF_8.decode(inBand).toString();
        }
    }

    record Probed(String text) {
    }

    @Test
    void everySingleByteAlterationIsRefusedBeforeAnythingIsDecoded() {
        SerializerRegistry registry = new SerializerRegistry();
        Probe probe = new Probe();
        registry.registerSerializer("test.Probe", String.class, probe);
        List<Object> value = new ArrayList<>(List.of("probe"));
        value.add(sample());
        byte[] signed = TestFiles.bytes(registry.serializeToFrame(value, KEY));
        registry.deserialize(ByteBuffer.wrap(signed), KEY);
        assertTrue(probe.decoded.get() > 0, "the probe serializer decodes the intact frame");
        probe.decoded.set(0);
        int refused = 0;
        for (int position = 0; position < signed.length; position++) {
            for (int mask : new int[] {0x01, 0x80, 0xff}) {
                byte[] altered = signed.clone();
                altered[position] ^= (byte) mask;
                DeserializationException e = assertThrows(DeserializationException.class,
                        () -> registry.deserialize(ByteBuffer.wrap(altered), KEY), "byte " + position + " ^ " + mask);
                if (e instanceof SignatureException) {
                    refused++;
                }
            }
        }
        assertEquals(0, probe.decoded.get(), "no altered frame may reach a serializer");
        // Only header fields checked before the signature (magic, version, reserved, total, flags) fail otherwise.
        assertTrue(refused >= 3 * (signed.length - 32), refused + " of " + 3 * signed.length);
    }

    @Test
    void inProcessResultsAreCheckedByTheirKey() {
        SerializationResult signed = REGISTRY.serialize(sample(), KEY);
        assertEquals(Describe.of(sample()), Describe.of(REGISTRY.deserialize(signed, KEY)));
        assertThrows(SignatureException.class, () -> REGISTRY.deserialize(signed, OTHER_KEY));
        assertThrows(SignatureException.class, () -> REGISTRY.deserialize(REGISTRY.serialize(sample()), KEY));
        assertFalse(REGISTRY.serialize(sample()).isSigned());
    }

    @Test
    void keysShorterThan16BytesOrNullAreRefused() {
        for (byte[] bad : new byte[][] {null, new byte[0], new byte[15]}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> REGISTRY.serialize(1L, bad));
            assertTrue(e.getMessage().contains("16 bytes") || e.getMessage().contains("null"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> REGISTRY.deserialize(REGISTRY.serializeToFrame(1L, KEY), bad));
            assertThrows(IllegalArgumentException.class, () -> REGISTRY.serialize(1L).signed(bad));
        }
        assertEquals(1L, REGISTRY.deserialize(REGISTRY.serializeToFrame(1L, new byte[16]), new byte[16]));
    }

    @Test
    void theKeyIsCopiedSoChangingTheCallersArrayChangesNothing() {
        byte[] key = KEY.clone();
        SerializationResult result = REGISTRY.serialize(sample(), key);
        key[0] ^= 1;
        assertEquals(Describe.of(sample()), Describe.of(REGISTRY.deserialize(result.toFrame(), KEY)));
    }

    private static JsonNode manifest() throws IOException {
        return new ObjectMapper().readTree(TestFiles.vectors("signed").resolve("manifest.json").toFile());
    }

    @Test
    void manifestKeyIsTheOneTheseTestsUse() throws IOException {
        assertArrayEquals(KEY, HexFormat.of().parseHex(manifest().get("key_hex").asText()));
    }

    @TestFactory
    Stream<DynamicTest> goldenSignedVectors() throws IOException {
        JsonNode root = manifest();
        byte[] key = HexFormat.of().parseHex(root.get("key_hex").asText());
        List<JsonNode> entries = new ArrayList<>();
        root.get("vectors").forEach(entries::add);
        assertEquals(5, entries.size());
        return entries.stream().map(e -> DynamicTest.dynamicTest(e.get("name").asText(), () -> {
            byte[] bytes = TestFiles.read(TestFiles.vectors("signed").resolve(e.get("file").asText()));
            switch (e.get("expect").asText()) {
                case "value" -> {
                    Object value = REGISTRY.deserialize(TestFiles.direct(bytes), key);
                    assertEquals(e.get("java").asText(), Describe.of(value));
                    assertArrayEquals(bytes, TestFiles.bytes(REGISTRY.serializeToFrame(value, key)),
                            "Java must sign the value back byte for byte");
                    assertEquals(e.get("java").asText(), Describe.of(REGISTRY.deserialize(TestFiles.direct(bytes))));
                }
                case "signature error" -> {
                    assertThrows(SignatureException.class, () -> REGISTRY.deserialize(TestFiles.direct(bytes), key));
                    Object value = REGISTRY.deserialize(TestFiles.direct(bytes));
                    assertEquals(ClassIdHash.of(e.get("class_id").asText()), ClassIdHash.readFrom(ByteBuffer.wrap(bytes),
                            32 + 16 * ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(8)));
                    assertInstanceOf(List.class, value);
                }
                default -> fail("unknown expectation " + e.get("expect"));
            }
        }));
    }
}
