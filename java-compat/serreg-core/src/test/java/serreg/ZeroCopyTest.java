package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serreg.types.NDArray;
import serreg.types.PyByteArray;

/**
 * Values decoded from a direct or mapped frame share the frame's memory: a write to the frame
 * shows through (serreg-arrow's ZeroCopyTest also checks the addresses, with Arrow's MemoryUtil).
 */
class ZeroCopyTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    /** The offset of {@code view}'s first byte in {@code frame}: the one place where a write to the frame changes it. */
    private static int offsetIn(ByteBuffer frame, ByteBuffer view) {
        byte before = view.get(view.position());
        for (int at = 0; at < frame.limit(); at++) {
            byte old = frame.get(at);
            frame.put(at, (byte) ~old);
            boolean changed = view.get(view.position()) != before;
            frame.put(at, old);
            if (changed) {
                return at;
            }
        }
        throw new AssertionError("no byte of the frame is the view's first byte: the view is a copy");
    }

    @Test
    void ndarrayDataIsAViewOfADirectFrame() {
        ByteBuffer data = ByteBuffer.allocate(8 * 1000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 1000; i++) {
            data.putLong(i);
        }
        ByteBuffer frame = TestFiles.direct(REGISTRY.serializeToFrame(new NDArray("<i8", new long[] {10, 100}, 'C', data.flip())));
        NDArray back = (NDArray) REGISTRY.deserialize(frame);
        assertTrue(back.data().isDirect());
        int at = offsetIn(frame, back.data());
        assertEquals(0, at % 64, "data sits at a 64-byte aligned frame offset");
        frame.order(ByteOrder.LITTLE_ENDIAN).putLong(at + 8, 42);
        assertEquals(42, back.data().order(ByteOrder.LITTLE_ENDIAN).getLong(8), "writes to the frame show through");
    }

    @Test
    void bytearrayIsAViewOfADirectFrame() {
        ByteBuffer frame = TestFiles.direct(REGISTRY.serializeToFrame(PyByteArray.of(new byte[] {1, 2, 3, 4})));
        PyByteArray back = (PyByteArray) REGISTRY.deserialize(frame);
        assertEquals(4, back.data().remaining());
        offsetIn(frame, back.data());
    }

    @Test
    void ndarrayFromAMemoryMappedFrame(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a.frame");
        ByteBuffer data = ByteBuffer.allocate(4096);
        data.put(100, (byte) 7);
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            REGISTRY.serialize(new NDArray("|u1", new long[] {4096}, 'C', data)).writeTo(out);
        }
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer mapped = in.map(FileChannel.MapMode.READ_ONLY, 0, Files.size(file));
            NDArray back = (NDArray) REGISTRY.deserialize(mapped);
            assertEquals(4096, back.data().remaining());
            assertEquals(7, back.data().get(100));
            assertTrue(back.data().isReadOnly() && back.data().isDirect(), "a read-only view of the mapping");
        }
    }
}
