package serreg.fuzz;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import serreg.DeserializationException;
import serreg.SerializerRegistry;
import serreg.arrow.ArrowSerializers;

/**
 * The Java twin of fuzz/worst_inputs.py: what the worst known inputs cost the Java reader.
 * {@code python fuzz/worst_inputs.py --write DIR} writes them; this reads every {@code *.frame}
 * of DIR and deserializes each (untrusted, then trusted) from a direct buffer, printing per input
 * and mode: the outcome, the heap this thread allocated during the call (garbage included, so an
 * upper bound on the call's peak), the heap the value keeps alive after a full GC, the Arrow
 * memory it holds, the bound 16 x S + 32 MiB, the factor beyond the 32 MiB allowance of the
 * larger of the two memory figures, and the time (fastest of 3) per MiB.
 *
 * <pre>java -Xmx4g --add-opens=java.base/java.nio=ALL-UNNAMED -cp "LIBDIR/*" serreg.fuzz.WorstInputs DIR</pre>
 */
public final class WorstInputs {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    private static final long MIB = 1 << 20;

    private WorstInputs() {
    }

    public static void main(String[] args) throws Exception {
        SerializerRegistry registry = new SerializerRegistry();
        BufferAllocator allocator = ArrowSerializers.sharedAllocator();
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of(args[0]))) {
            files = s.filter(p -> p.toString().endsWith(".frame")).sorted().toList();
        }
        // Warm up: load every serializer and let the JIT compile the reader.
        for (int i = 0; i < 3; i++) {
            for (Path p : files) {
                for (boolean trusted : new boolean[] {false, true}) {
                    run(registry, direct(Files.readAllBytes(p)), trusted, false);
                }
            }
        }
        System.out.printf("%-40s %-10s %10s %-22s %11s %11s %9s %7s %12s %7s %7s%n", "input", "mode", "bytes", "outcome",
                "alloc MiB", "live MiB", "Arrow MiB", "bound", "(peak-32M)/S", "s", "s/MiB");
        for (Path p : files) {
            byte[] bytes = Files.readAllBytes(p);
            for (boolean trusted : new boolean[] {false, true}) {
                ByteBuffer frame = direct(bytes);
                long nanos = Long.MAX_VALUE;
                for (int i = 0; i < 3; i++) {
                    long start = System.nanoTime();
                    run(registry, frame, trusted, false);
                    nanos = Math.min(nanos, System.nanoTime() - start);
                }
                System.gc();
                long liveBefore = MEMORY.getHeapMemoryUsage().getUsed();
                long arrowBefore = allocator.getAllocatedMemory();
                long allocBefore = THREADS.getCurrentThreadAllocatedBytes();
                Object[] held = new Object[1];
                String outcome = run(registry, frame, trusted, true, held);
                long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocBefore;
                System.gc();
                long live = Math.max(0, MEMORY.getHeapMemoryUsage().getUsed() - liveBefore);
                long arrow = allocator.getAllocatedMemory() - arrowBefore;
                ReaderFuzz.release(held[0]);
                held[0] = null;
                long size = bytes.length;
                long bound = 16 * size + 32 * MIB;
                long peak = Math.max(allocated, live + arrow);
                double beyond = Math.max(0, peak - 32 * MIB) / (double) size;
                System.out.printf("%-40s %-10s %,10d %-22s %11.1f %11.1f %9.1f %7.1f %12.1f %7.3f %7.3f%s%n",
                        p.getFileName().toString().replace(".frame", "").replace('_', ' '), trusted ? "trusted" : "untrusted",
                        size, outcome.length() > 22 ? outcome.substring(0, 22) : outcome, allocated / (double) MIB,
                        live / (double) MIB, arrow / (double) MIB, bound / (double) MIB, beyond, nanos / 1e9,
                        nanos / 1e9 / (size / (double) MIB), peak > bound ? "  over the bound" : "");
            }
        }
    }

    private static ByteBuffer direct(byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length);
        b.put(bytes).flip();
        return b;
    }

    private static String run(SerializerRegistry registry, ByteBuffer frame, boolean trusted, boolean keep) {
        return run(registry, frame, trusted, keep, new Object[1]);
    }

    private static String run(SerializerRegistry registry, ByteBuffer frame, boolean trusted, boolean keep, Object[] held) {
        try {
            Object value = registry.deserialize(frame.duplicate(), trusted);
            if (keep) {
                held[0] = value;
            } else {
                ReaderFuzz.release(value);
            }
            return "value";
        } catch (DeserializationException e) {
            return e.getClass().getSimpleName();
        }
    }
}
