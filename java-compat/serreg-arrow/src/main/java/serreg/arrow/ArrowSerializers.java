package serreg.arrow;

import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import serreg.SerializerModule;
import serreg.SerializerRegistry;

/**
 * Registers {@code ArrowTable} and {@code ArrowRecordBatch} (docs/FORMAT.md section 6.4): the
 * {@link SerializerModule} of serreg-arrow, found through {@code META-INF/services} whenever
 * serreg-arrow is on the class path. Registering touches no Arrow memory: the shared allocator
 * is created when the first Arrow value is read, so a registry used only for other values
 * never needs Arrow's {@code --add-opens=java.base/java.nio=ALL-UNNAMED}.
 */
public final class ArrowSerializers implements SerializerModule {
    private static volatile BufferAllocator sharedAllocator;

    /** Found by {@link java.util.ServiceLoader}. */
    public ArrowSerializers() {
    }

    /**
     * The allocator decoded Arrow data is accounted to when none is given, created on first use.
     *
     * @return the process-wide root allocator of serreg-arrow
     */
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

    @Override
    public String name() {
        return "serreg.arrow";
    }

    /** After the standard types, before modules of the default order. */
    @Override
    public int order() {
        return -100;
    }

    /** Registers both class IDs; decoded data goes to {@link #sharedAllocator()}, created on first use. */
    @Override
    public void register(SerializerRegistry registry) {
        register(registry, ArrowSerializers::sharedAllocator);
    }

    /**
     * Registers both class IDs with decoded data accounted to {@code allocator}, replacing the
     * registrations of the module (same class IDs, same classes).
     *
     * @param registry the registry
     * @param allocator the allocator decoded vectors are accounted to
     */
    public static void registerWith(SerializerRegistry registry, BufferAllocator allocator) {
        register(registry, () -> allocator);
    }

    private static void register(SerializerRegistry registry, Supplier<BufferAllocator> allocator) {
        registry.registerSerializer("ArrowTable", VectorSchemaRoot.class, new ArrowTableSerializer(registry, allocator));
        registry.registerSerializer("ArrowRecordBatch", ArrowRecordBatch.class,
                new ArrowRecordBatchSerializer(registry, allocator));
    }
}
