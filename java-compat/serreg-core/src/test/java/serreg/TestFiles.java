package serreg;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository's golden vectors are, and direct-buffer helpers. */
public final class TestFiles {
    private TestFiles() {
    }

    public static Path repoRoot() {
        return Path.of(System.getProperty("serreg.repoRoot", "..")).toAbsolutePath().normalize();
    }

    public static Path vectors(String producer) {
        return repoRoot().resolve("tests").resolve("vectors").resolve(producer);
    }

    /** The bytes in a direct buffer, as the fixture holds a message. */
    public static ByteBuffer direct(byte[] bytes) {
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    public static ByteBuffer direct(ByteBuffer bytes) {
        return ByteBuffer.allocateDirect(bytes.remaining()).put(bytes.duplicate()).flip();
    }

    public static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    public static byte[] read(Path file) throws java.io.IOException {
        return Files.readAllBytes(file);
    }
}
