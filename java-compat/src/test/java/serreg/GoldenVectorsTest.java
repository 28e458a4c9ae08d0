package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import serreg.fixture.Describe;
import serreg.fixture.Main;

/** Python-made vectors decode to the Java values their manifest names, and Java writes them back. */
class GoldenVectorsTest {
    private static final SerializerRegistry REGISTRY = Main.fixtureRegistry();

    private static List<JsonNode> manifest(String producer) throws IOException {
        JsonNode root = new ObjectMapper().readTree(TestFiles.vectors(producer).resolve("manifest.json").toFile());
        List<JsonNode> out = new ArrayList<>();
        root.get("vectors").forEach(out::add);
        return out;
    }

    @TestFactory
    Stream<DynamicTest> pythonVectorsDecodeToTheManifestValues() throws IOException {
        List<JsonNode> entries = manifest("python");
        assertTrue(entries.size() >= 70, "the Python manifest lists " + entries.size() + " vectors");
        return entries.stream().map(e -> DynamicTest.dynamicTest(e.get("name").asText(), () -> {
            byte[] bytes = TestFiles.read(TestFiles.vectors("python").resolve(e.get("file").asText()));
            if (!e.get("java_error").isNull()) {
                RemoteException error = assertThrows(RemoteException.class, () -> REGISTRY.deserialize(TestFiles.direct(bytes)));
                assertEquals(e.get("java_error").asText(), error.remoteMessage());
                return;
            }
            Object value = REGISTRY.deserialize(TestFiles.direct(bytes));
            try {
                assertEquals(e.get("java").asText(), Describe.of(value));
                byte[] again = TestFiles.bytes(REGISTRY.serialize(value).toFrame());
                if (e.get("java_writes_identical").asBoolean()) {
                    assertArrayEquals(bytes, again, "Java must write the value back byte for byte");
                } else {
                    assertEquals(Describe.of(value), Describe.of(REGISTRY.deserialize(TestFiles.direct(again))));
                }
            } finally {
                if (value instanceof AutoCloseable c) {
                    c.close();
                }
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> produceWritesTheCommittedJavaVectors() throws Exception {
        Path out = Files.createTempDirectory("serreg-produce");
        Main.main(new String[] {"produce", out.toString()});
        Path committed = TestFiles.vectors("java");
        List<String> names;
        try (Stream<Path> files = Files.list(committed)) {
            names = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(names, files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertFalse(names.isEmpty());
        return names.stream().map(name -> DynamicTest.dynamicTest(name,
                () -> assertArrayEquals(TestFiles.read(committed.resolve(name)), TestFiles.read(out.resolve(name)),
                        name + " differs from the committed vector; rerun produce if the change is intended")));
    }

    @TestFactory
    Stream<DynamicTest> javaVectorsDecodeToWhatTheirManifestSays() throws IOException {
        return manifest("java").stream().filter(e -> !e.get("java").isNull()).map(e -> DynamicTest.dynamicTest(
                e.get("name").asText(), () -> {
                    byte[] bytes = TestFiles.read(TestFiles.vectors("java").resolve(e.get("file").asText()));
                    Object value = REGISTRY.deserialize(TestFiles.direct(bytes));
                    assertEquals(e.get("java").asText(), Describe.of(value));
                    assertArrayEquals(bytes, TestFiles.bytes(REGISTRY.serialize(value).toFrame()));
                    if (value instanceof AutoCloseable c) {
                        c.close();
                    }
                }));
    }
}
