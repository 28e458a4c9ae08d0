package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serreg.types.NDArray;

/** MappedFrames and SharedRegions: frames written through a mapping and read in place. */
class MappedFramesTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static NDArray longs(int n) {
        ByteBuffer data = ByteBuffer.allocate(8 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            data.putLong(i * 7L);
        }
        return new NDArray("<i8", new long[] {n}, 'C', data.flip());
    }

    @Test
    void anNDArrayIsAReadOnlyViewOfTheMappedFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a.frame");
        long length = MappedFrames.dump(REGISTRY, longs(100_000), file, null);
        assertEquals(Files.size(file), length);
        assertEquals(List.of(file.getFileName()), Files.list(dir).map(Path::getFileName).toList(), "no temporary file left");
        MappedByteBuffer mapping = MappedFrames.map(file, Limits.DEFAULT, -1);
        NDArray back = (NDArray) REGISTRY.deserialize(mapping);
        assertTrue(back.data().isDirect() && back.data().isReadOnly());
        assertEquals(99_999 * 7L, back.data().order(ByteOrder.LITTLE_ENDIAN).getLong(8 * 99_999));
        NDArray loaded = (NDArray) MappedFrames.load(REGISTRY, file, null);
        assertEquals(longs(100_000).data(), loaded.data().order(ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void aTruncatedOrGrownFileIsRefusedBeforeMapping(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t.frame");
        long length = MappedFrames.dump(REGISTRY, longs(1000), file, null);
        for (long keep : new long[] {0, 31, 100, length - 1}) {
            MappedFrames.dump(REGISTRY, longs(1000), file, null);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(keep);
            }
            FrameFormatException e = assertThrows(FrameFormatException.class, () -> MappedFrames.load(REGISTRY, file, null));
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        MappedFrames.dump(REGISTRY, longs(1000), file, null);
        Files.write(file, new byte[64], StandardOpenOption.APPEND);
        FrameFormatException e = assertThrows(FrameFormatException.class, () -> MappedFrames.load(REGISTRY, file, null));
        assertTrue(e.getMessage().contains("followed by other data"), e.getMessage());
    }

    @Test
    void limitsAndKeysHold(@TempDir Path dir) {
        Path file = dir.resolve("l.frame");
        MappedFrames.dump(REGISTRY, longs(10_000), file, null);
        assertThrows(LimitExceededException.class, () -> MappedFrames.map(file, Limits.DEFAULT.withMaxFrameSize(1000), -1));
        byte[] key = "0123456789abcdef0123456789abcdef".getBytes();
        assertThrows(SignatureException.class, () -> MappedFrames.load(REGISTRY, file, key));
        MappedFrames.dump(REGISTRY, longs(10), file, key);
        NDArray back = (NDArray) MappedFrames.load(REGISTRY, file, key);
        assertFalse(back.data().isDirect(), "a signed frame is verified and decoded on a private heap copy");
    }

    @Test
    void sharedRegionsRoundTripAndRelease() throws Exception {
        SharedRegions.Handle handle = SharedRegions.put(REGISTRY, Map.of("n", 42L, "a", longs(1000)));
        Path path = SharedRegions.directory().resolve(handle.name());
        assertEquals(Files.size(path), handle.size());
        assertEquals(ProcessHandle.current().pid(), handle.writerPid());
        @SuppressWarnings("unchecked")
        Map<String, Object> back = (Map<String, Object>) SharedRegions.get(REGISTRY, handle);
        assertTrue(SharedRegions.release(handle));
        assertFalse(SharedRegions.release(handle));
        NDArray a = (NDArray) back.get("a");
        assertEquals(999 * 7L, a.data().order(ByteOrder.LITTLE_ENDIAN).getLong(8 * 999), "readable after release");
        assertThrows(DeserializationException.class, () -> SharedRegions.get(REGISTRY, handle));
        assertThrows(IllegalArgumentException.class, () -> new SharedRegions.Handle("../../etc/passwd", 1));
    }
}
