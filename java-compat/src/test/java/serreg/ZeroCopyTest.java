package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serreg.types.NDArray;

/** Values decoded from a direct or mapped frame point into the frame's memory. */
class ZeroCopyTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static long address(ByteBuffer b) {
        return MemoryUtil.getByteBufferAddress(b) + b.position();
    }

    private static void assertInside(long address, long length, ByteBuffer frame) {
        long start = address(frame);
        assertTrue(address >= start && address + length <= start + frame.remaining(),
                "address " + address + " is outside the frame [" + start + ", " + (start + frame.remaining()) + ")");
    }

    @Test
    void ndarrayDataIsAViewOfADirectFrame() {
        ByteBuffer data = ByteBuffer.allocate(8 * 1000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 1000; i++) {
            data.putLong(i);
        }
        ByteBuffer frame = TestFiles.direct(REGISTRY.serializeToFrame(new NDArray("<i8", new long[] {10, 100}, 'C', data.flip())));
        NDArray back = (NDArray) REGISTRY.deserialize(frame);
        assertInside(address(back.data()), back.data().remaining(), frame);
        assertEquals(0, address(back.data()) % 64 == address(frame) % 64 ? 0 : 1, "data sits at a 64-byte aligned frame offset");
        frame.order(ByteOrder.LITTLE_ENDIAN).putLong((int) (address(back.data()) - address(frame)) + 8, 42);
        assertEquals(42, back.data().order(ByteOrder.LITTLE_ENDIAN).getLong(8), "writes to the frame show through");
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
            assertInside(address(back.data()), 4096, mapped);
            assertEquals(7, back.data().get(100));
            assertTrue(back.data().isReadOnly());
        }
    }

    @Test
    void arrowVectorsAreViewsOfADirectFrame() {
        try (BigIntVector v = new BigIntVector("n", serreg.arrow.ArrowSerializers.sharedAllocator())) {
            v.allocateNew(10_000);
            for (int i = 0; i < 10_000; i++) {
                v.set(i, i * 3L);
            }
            v.setValueCount(10_000);
            ByteBuffer frame;
            try (VectorSchemaRoot root = VectorSchemaRoot.of(v)) {
                root.setRowCount(10_000);
                frame = TestFiles.direct(REGISTRY.serializeToFrame(root));
            }
            try (VectorSchemaRoot back = (VectorSchemaRoot) REGISTRY.deserialize(frame)) {
                BigIntVector n = (BigIntVector) back.getVector("n");
                ArrowBuf dataBuf = n.getDataBuffer();
                assertInside(dataBuf.memoryAddress(), 8 * 10_000L, frame);
                assertEquals(29_997L, n.get(9_999));
            }
        }
    }
}
