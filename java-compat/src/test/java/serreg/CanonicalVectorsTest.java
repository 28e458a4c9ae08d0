package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import serreg.types.NDArray;

/** The canonical vectors of tests/vectors/canonical (docs/FORMAT.md, section 9.9). */
class CanonicalVectorsTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static List<JsonNode> manifest() throws IOException {
        JsonNode root = new ObjectMapper().readTree(TestFiles.vectors("canonical").resolve("manifest.json").toFile());
        List<JsonNode> out = new ArrayList<>();
        root.forEach(out::add);
        return out;
    }

    @TestFactory
    Stream<DynamicTest> javaWritesEveryVectorBackInCanonicalFormWithItsDigest() throws IOException {
        List<JsonNode> entries = manifest();
        assertTrue(entries.size() >= 30, "the canonical manifest lists " + entries.size() + " vectors");
        return entries.stream().map(e -> DynamicTest.dynamicTest(e.get("name").asText(), () -> {
            byte[] frame = TestFiles.read(TestFiles.vectors("canonical").resolve(e.get("file").asText()));
            byte[] digest = HexFormat.of().parseHex(e.get("digest").asText());
            assertArrayEquals(digest, MessageDigest.getInstance("SHA-256").digest(frame));
            Object value = REGISTRY.deserialize(TestFiles.direct(frame));
            try {
                byte[] again = TestFiles.bytes(Serreg.serializeCanonical(REGISTRY, value).toFrame());
                assertArrayEquals(frame, again, "Java's canonical frame differs from the vector");
                assertArrayEquals(digest, Serreg.digest(REGISTRY, value));
            } finally {
                if (value instanceof AutoCloseable c) {
                    c.close();
                }
            }
        }));
    }

    @Test
    void mapOrderNegativeZeroAndDecimalScaleDoNotChangeTheDigest() {
        Map<Object, Object> forward = new LinkedHashMap<>();
        forward.put("b", -0.0);
        forward.put("a", new BigDecimal("1.50"));
        forward.put(3L, List.of(Double.longBitsToDouble(0xFFF0000000000001L)));
        Map<Object, Object> backward = new LinkedHashMap<>();
        backward.put(3L, List.of(Double.NaN));
        backward.put("a", new BigDecimal("1.5"));
        backward.put("b", 0.0);
        assertArrayEquals(Serreg.digest(REGISTRY, forward), Serreg.digest(REGISTRY, backward));
        backward.put("b", 1.0);
        assertTrue(!java.util.Arrays.equals(Serreg.digest(REGISTRY, forward), Serreg.digest(REGISTRY, backward)));
    }

    @Test
    void fortranAndBigEndianArraysHaveTheDigestOfTheirCOrderLittleEndianTwin() {
        // [[1, 2, 3], [4, 5, 6]] as int16 in three layouts.
        ByteBuffer c = bytes(1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0);
        ByteBuffer f = bytes(1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6, 0);
        ByteBuffer big = bytes(0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6);
        byte[] expected = Serreg.digest(REGISTRY, new NDArray("<i2", new long[] {2, 3}, 'C', c));
        assertArrayEquals(expected, Serreg.digest(REGISTRY, new NDArray("<i2", new long[] {2, 3}, 'F', f)));
        assertArrayEquals(expected, Serreg.digest(REGISTRY, new NDArray(">i2", new long[] {2, 3}, 'C', big)));
        assertEquals(32, expected.length);
    }

    private static ByteBuffer bytes(int... values) {
        ByteBuffer out = ByteBuffer.allocate(values.length);
        for (int v : values) {
            out.put((byte) v);
        }
        return out.flip();
    }
}
