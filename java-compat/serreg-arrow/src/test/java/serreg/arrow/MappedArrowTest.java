package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serreg.Limits;
import serreg.MappedFrames;
import serreg.SerializerRegistry;

/** Arrow vectors loaded from a mapped frame file are ArrowBufs over the mapping: no copy. */
class MappedArrowTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    @Test
    void everyBufferLiesInsideTheMapping(@TempDir Path dir) {
        Path file = dir.resolve("t.frame");
        int n = 20_000;
        try (BigIntVector v = new BigIntVector("n", ArrowSerializers.sharedAllocator());
             VarCharVector s = new VarCharVector("s", ArrowSerializers.sharedAllocator())) {
            v.allocateNew(n);
            s.allocateNew();
            for (int i = 0; i < n; i++) {
                v.set(i, i * 3L);
                s.setSafe(i, ("r" + i).getBytes());
            }
            v.setValueCount(n);
            s.setValueCount(n);
            try (VectorSchemaRoot root = VectorSchemaRoot.of(v, s)) {
                root.setRowCount(n);
                MappedFrames.dump(REGISTRY, root, file, null);
            }
        }
        MappedByteBuffer mapping = MappedFrames.map(file, Limits.DEFAULT, -1);
        long start = MemoryUtil.getByteBufferAddress(mapping);
        long end = start + mapping.capacity();
        try (VectorSchemaRoot back = (VectorSchemaRoot) REGISTRY.deserialize(mapping)) {
            assertEquals(n * 3L - 3, ((BigIntVector) back.getVector("n")).get(n - 1));
            assertEquals("r19999", new String(((VarCharVector) back.getVector("s")).get(n - 1)));
            for (FieldVector vector : back.getFieldVectors()) {
                for (ArrowBuf buf : vector.getFieldBuffers()) {
                    if (buf.capacity() > 0 && vector.getNullCount() == 0 && buf != vector.getValidityBuffer()) {
                        assertTrue(buf.memoryAddress() >= start && buf.memoryAddress() + buf.capacity() <= end,
                                vector.getName() + ": a buffer outside the mapping");
                    }
                }
            }
        }
    }
}
