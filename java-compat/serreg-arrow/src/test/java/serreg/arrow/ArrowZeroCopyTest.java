package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import serreg.SerializerRegistry;
import serreg.TestFiles;

/** Arrow vectors decoded from a direct frame are ArrowBufs over the frame's own memory. */
class ArrowZeroCopyTest {
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
    void arrowVectorsAreViewsOfADirectFrame() {
        try (BigIntVector v = new BigIntVector("n", ArrowSerializers.sharedAllocator())) {
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
