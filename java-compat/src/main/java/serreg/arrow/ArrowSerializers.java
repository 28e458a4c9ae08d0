package serreg.arrow;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import serreg.SerializerRegistry;
import serreg.types.ArrowRecordBatch;

/** Registers {@code ArrowTable} and {@code ArrowRecordBatch} (docs/FORMAT.md section 6.4). */
public final class ArrowSerializers {
    private static volatile BufferAllocator sharedAllocator;

    private ArrowSerializers() {
    }

    /** The allocator decoded Arrow data is accounted to when none is given. */
    public static BufferAllocator sharedAllocator() {
        BufferAllocator a = sharedAllocator;
        if (a == null) {
            synchronized (ArrowSerializers.class) {
                a = sharedAllocator;
                if (a == null) {
                    a = new RootAllocator(Long.MAX_VALUE);
                    sharedAllocator = a;
                }
            }
        }
        return a;
    }

    public static void registerAll(SerializerRegistry registry) {
        registerAll(registry, sharedAllocator());
    }

    public static void registerAll(SerializerRegistry registry, BufferAllocator allocator) {
        registry.registerSerializer("ArrowTable", VectorSchemaRoot.class, new ArrowTableSerializer(registry, allocator));
        registry.registerSerializer("ArrowRecordBatch", ArrowRecordBatch.class,
                new ArrowRecordBatchSerializer(registry, allocator));
    }
}
