package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import serreg.SerializerRegistry;
import serreg.Serreg;
import serreg.TestFiles;
import serreg.types.NDArray;
import serreg.types.Tuple;

/**
 * With serreg-arrow on the class path, {@code new SerializerRegistry()} registers Arrow, yet a JVM
 * started without {@code --add-opens=java.base/java.nio=ALL-UNNAMED} serializes, reads and digests
 * every other value: Arrow memory is first touched when an Arrow value is read. Checked in a
 * child JVM without the flag (this test JVM has it, for the other Arrow tests).
 */
class LazyArrowTest {
    /** The child JVM's main: {@code values} uses no Arrow value; {@code arrow} reads one (it must fail). */
    public static final class Probe {
        public static void main(String[] args) throws IOException {
            SerializerRegistry registry = new SerializerRegistry();
            if (!registry.isRegistered("ArrowTable") || !registry.isRegistered("ArrowRecordBatch")) {
                throw new AssertionError("serreg-arrow is on the class path but ArrowTable is not registered");
            }
            if (args[0].equals("arrow")) {
                byte[] frame = Files.readAllBytes(TestFiles.vectors("python").resolve("arrow_table.frame"));
                registry.deserialize(TestFiles.direct(frame));
                System.out.println("read an Arrow table");
                return;
            }
            ByteBuffer data = ByteBuffer.allocate(16).putLong(0, 7).putLong(8, 9);
            Object value = List.of(Map.of("k", 1L), Tuple.of("x", new BigDecimal("1.50")), new NDArray("<i8", new long[] {2}, 'C', data));
            Object back = registry.deserialize(TestFiles.direct(registry.serializeToFrame(value)));
            if (!value.equals(back)) {
                throw new AssertionError(value + " came back as " + back);
            }
            Serreg.digest(value);
            Serreg.digest(SerializerRegistry.getDefault(), new ArrayList<>(List.of("a", 2L)));
            System.out.println("ok without --add-opens");
        }
    }

    private static String[] run(String mode) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", classPath,
                "-Dserreg.repoRoot=" + TestFiles.repoRoot(), Probe.class.getName(), mode);
        builder.redirectErrorStream(true);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new String[] {Integer.toString(process.waitFor()), output};
    }

    @Test
    void otherValuesNeedNoAddOpens() throws Exception {
        String[] result = run("values");
        assertEquals("0", result[0], result[1]);
        assertTrue(result[1].contains("ok without --add-opens"), result[1]);
    }

    @Test
    void readingAnArrowValueIsWhatNeedsIt() throws Exception {
        // The control: were Arrow initialised by registering, the run above would fail like this.
        String[] result = run("arrow");
        assertNotEquals("0", result[0], result[1]);
        assertTrue(result[1].contains("add-opens"), result[1]);
    }
}
