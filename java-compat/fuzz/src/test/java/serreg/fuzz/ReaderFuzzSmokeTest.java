package serreg.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A few seconds of the fuzz target without the fuzzer: every input a fuzzer found a bug with
 * (tests/fuzz_regressions/*.bin, Python's and Java's findings alike) and every golden frame, in
 * each of the target's modes (untrusted, trusted, direct buffer, signed), must pass its check: a
 * value or a deliberate DeserializationException, within the amplification bound.
 */
class ReaderFuzzSmokeTest {
    private static Path root() {
        return Path.of(System.getProperty("serreg.repoRoot", "../.."));
    }

    private static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }

    @Test
    void theRegressionInputsAndTheGoldenFramesPassTheTarget() throws IOException {
        ReaderFuzz.fuzzerInitialize();
        List<byte[]> inputs = new ArrayList<>();
        for (Path p : files(root().resolve("tests/fuzz_regressions"), ".bin")) {
            inputs.add(Files.readAllBytes(p));
        }
        int regressions = inputs.size();
        for (String producer : List.of("python", "java", "canonical")) {
            for (Path p : files(root().resolve("tests/vectors").resolve(producer), producer.equals("canonical") ? ".srg" : ".frame")) {
                byte[] frame = Files.readAllBytes(p);
                byte[] input = new byte[frame.length + 1];
                System.arraycopy(frame, 0, input, 1, frame.length);
                inputs.add(input);
            }
        }
        assertTrue(regressions >= 2 && inputs.size() > 100, regressions + " regression inputs, " + inputs.size() + " in all");
        for (byte[] input : inputs) {
            int first = input.length == 0 ? 0 : input[0] & 0x0f;
            for (int modeBits : new int[] {0x00, 0x10, 0x20, 0x40, 0x70}) {
                byte[] variant = input.clone();
                if (variant.length > 0) {
                    variant[0] = (byte) (first | modeBits);
                }
                ReaderFuzz.fuzzerTestOneInput(variant);
            }
        }
    }
}
