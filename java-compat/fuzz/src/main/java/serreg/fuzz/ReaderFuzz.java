package serreg.fuzz;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import serreg.DeserializationException;
import serreg.SerializationResult;
import serreg.Limits;
import serreg.SerializerRegistry;
import serreg.arrow.ArrowSerializers;
import serreg.types.FrozenSet;
import serreg.types.Tuple;
import serreg.wire.ClassIdHash;
import serreg.wire.FrameReader;
import serreg.wire.FrameView;

/**
 * The Jazzer fuzz target of the Java reader: every input becomes a frame, which the default
 * registry (standard types, numpy, Arrow) deserializes. The only outcome allowed besides a value
 * is a {@link DeserializationException} raised by a check; anything else (another exception, an
 * Error such as OutOfMemoryError or StackOverflowError, a DeserializationException that merely
 * wraps an unchecked exception from inside a serializer) is a finding, and so is an input that
 * costs more than the amplification bound (see {@link #checkCost}).
 *
 * <p>The first input byte picks how the rest is read, as in Python's fuzz/inputs.py, so the two
 * fuzzers share seeds:
 * <ul>
 *   <li>even: the rest is a whole frame;</li>
 *   <li>1 (mod 4): byte 1 is a buffer count (mod 4), then a 2-byte little-endian length per
 *       buffer, the buffers, and the in-band section (ClassIDHash first), framed correctly;</li>
 *   <li>3 (mod 4): as 1, but byte 1 picks the class ID from {@link #CLASS_IDS} and the rest holds
 *       only the serializer's in-band.</li>
 * </ul>
 * Bits 4-6 of the first byte (which Python's seeds leave 0) pick how it is read: bit 4 trusted
 * mode instead of untrusted, bit 5 a direct buffer instead of a heap one, bit 6 signed (the frame
 * is signed with a fixed key and read with it, through the private copy).
 */
public final class ReaderFuzz {
    /** Python's sorted {@code serreg.standard.DATA_CLASS_IDS}: mode 3's class IDs by index. */
    static final List<String> CLASS_IDS = serreg.Trust.dataClassIds().stream().sorted().toList();
    private static final List<ClassIdHash> HASHES = CLASS_IDS.stream().map(ClassIdHash::of).toList();
    private static final byte[] KEY = "serreg fuzz key, 32 bytes long!!".getBytes(StandardCharsets.US_ASCII);

    /** The amplification bound: memory factor x S + allowance, time base + per MiB (as fuzz/amplification.py). */
    static final long FACTOR = 16;
    static final long ALLOWANCE = 32L << 20;
    static final double BASE_SECONDS = 0.5;
    static final double SECONDS_PER_MIB = 2.0;

    private static final SerializerRegistry REGISTRY = new SerializerRegistry();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private ReaderFuzz() {
    }

    /** Jazzer calls this once before fuzzing. */
    public static void fuzzerInitialize() {
        // Load every serializer and Arrow's classes before the first input is measured.
        for (String classId : CLASS_IDS) {
            REGISTRY.isRegistered(classId);
        }
        // ... and decode each file of the directory -Dserreg.fuzz.warmup names (the golden vectors):
        // what Arrow and the JIT set up on first use is not charged to the first input that needs it.
        String dir = System.getProperty("serreg.fuzz.warmup");
        if (dir != null) {
            try (var files = java.nio.file.Files.list(java.nio.file.Path.of(dir))) {
                for (java.nio.file.Path p : files.toList()) {
                    try {
                        release(REGISTRY.deserialize(ByteBuffer.wrap(java.nio.file.Files.readAllBytes(p)), true));
                    } catch (RuntimeException e) {
                        // a vector that does not decode warms up all the same
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** The frame an input stands for (see the class comment). */
    static byte[] frameFromInput(byte[] data) {
        if (data.length == 0) {
            return data;
        }
        int mode = data[0] & 0xff;
        if (mode % 2 == 0) {
            return java.util.Arrays.copyOfRange(data, 1, data.length);
        }
        int p = 1;
        byte[] prefix = new byte[0];
        if (mode % 4 == 3) {
            int index = p < data.length ? (data[p] & 0xff) % HASHES.size() : 0;
            prefix = HASHES.get(index).toBytes();
            p++;
        }
        int count = p < data.length ? (data[p] & 0xff) % 4 : 0;
        p++;
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            int lo = p < data.length ? data[p] & 0xff : 0;
            int hi = p + 1 < data.length ? data[p + 1] & 0xff : 0;
            lengths[i] = lo | hi << 8;
            p += 2;
        }
        List<ByteBuffer> buffers = new ArrayList<>();
        for (int length : lengths) {
            int from = Math.min(p, data.length);
            int to = Math.min(p + length, data.length);
            buffers.add(ByteBuffer.wrap(java.util.Arrays.copyOfRange(data, from, to)));
            p += length;
        }
        int from = Math.min(p, data.length);
        ByteBuffer inBand = ByteBuffer.allocate(prefix.length + data.length - from);
        inBand.put(prefix).put(data, from, data.length - from).flip();
        ByteBuffer frame = new SerializationResult(inBand, buffers).toFrame();
        byte[] out = new byte[frame.remaining()];
        frame.get(out);
        return out;
    }

    public static void fuzzerTestOneInput(byte[] data) {
        int mode = data.length == 0 ? 0 : data[0] & 0xff;
        boolean trusted = (mode & 0x10) != 0;
        boolean direct = (mode & 0x20) != 0;
        boolean signed = (mode & 0x40) != 0;
        byte[] frame = frameFromInput(data);
        if (signed) {
            frame = sign(frame);
        }
        ByteBuffer buffer;
        if (direct) {
            buffer = ByteBuffer.allocateDirect(frame.length);
            buffer.put(frame).flip();
        } else {
            buffer = ByteBuffer.wrap(frame);
        }
        Cost cost = measure(buffer, trusted, signed);
        if (cost.nanos / 1e9 > timeBound(Math.max(data.length, frame.length))) {
            // A pause of the machine is not a finding: the fastest of three runs counts.
            for (int i = 0; i < 2; i++) {
                cost = new Cost(cost.heap, cost.arrow, Math.min(cost.nanos, measure(buffer, trusted, signed).nanos));
            }
        }
        checkCost(Math.max(data.length, frame.length), cost.heap, cost.arrow, cost.nanos);
    }

    private record Cost(long heap, long arrow, long nanos) {
    }

    /** Decodes once and releases the value; the heap this thread allocated, the Arrow memory the value held, the time. */
    private static Cost measure(ByteBuffer buffer, boolean trusted, boolean signed) {
        BufferAllocator allocator = ArrowSerializers.sharedAllocator();
        long arrowBefore = allocator.getAllocatedMemory();
        long heapBefore = THREADS.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        Object value = null;
        try {
            value = decode(buffer.duplicate(), trusted, signed);
        } catch (DeserializationException e) {
            if (!deliberate(e)) {
                throw new IllegalStateException("not a check's refusal: " + e.getMessage(), e);
            }
        }
        long nanos = System.nanoTime() - start;
        long heap = THREADS.getCurrentThreadAllocatedBytes() - heapBefore;
        long arrow = allocator.getAllocatedMemory() - arrowBefore;
        release(value);
        return new Cost(heap, arrow, nanos);
    }

    /**
     * Whether a DeserializationException comes from a check made on purpose, not from the
     * catch-alls that turn an unchecked exception from a serializer, or an exception or Error that
     * escaped the reader, into one (those mean a check is missing: a finding).
     */
    static boolean deliberate(DeserializationException e) {
        // By the start of the message and the cause, never by text a frame could put inside it.
        String message = e.getMessage();
        Throwable cause = e.getCause();
        return !(message.startsWith("serializer failed") || message.startsWith("the frame could not be read: an unchecked")
                || cause instanceof StackOverflowError || cause instanceof OutOfMemoryError);
    }

    static double timeBound(int size) {
        return BASE_SECONDS + SECONDS_PER_MIB * size / (1 << 20);
    }

    private static Object decode(ByteBuffer frame, boolean trusted, boolean signed) {
        if (signed) {
            return REGISTRY.deserialize(frame, KEY, trusted);
        }
        return REGISTRY.deserialize(frame, trusted);
    }

    /**
     * Memory: the bytes this thread allocated on the heap during the call (an upper bound on its
     * peak: garbage counts too) plus the Arrow memory still held by the value, against
     * {@code FACTOR x S + ALLOWANCE}. Time against {@code BASE_SECONDS + SECONDS_PER_MIB x S / MiB}
     * (a slow input is measured twice more and the fastest counts, so a pause is not a finding).
     */
    static void checkCost(int size, long heapBytes, long arrowBytes, long nanos) {
        long bound = FACTOR * size + ALLOWANCE;
        if (heapBytes + arrowBytes > bound) {
            throw new IllegalStateException("amplification: an input of " + size + " bytes made the reader allocate "
                    + heapBytes + " heap bytes and hold " + arrowBytes + " Arrow bytes, over the bound of " + bound);
        }
        double limit = timeBound(size);
        if (nanos / 1e9 > limit) {
            throw new IllegalStateException("amplification: an input of " + size + " bytes took " + nanos / 1e9
                    + " s, over the bound of " + limit + " s");
        }
    }

    /** The frame signed with {@link #KEY} as a writer would, or the bytes as they are if no frame can be read from them. */
    static byte[] sign(byte[] frame) {
        FrameView view;
        try {
            view = FrameReader.read(ByteBuffer.wrap(frame), Limits.DEFAULT, null);
        } catch (DeserializationException e) {
            return frame; // not a frame: read with a key, it must be refused
        }
        ByteBuffer signed = new SerializationResult(view.inBand(), view.outOfBand()).signed(KEY).toFrame();
        byte[] out = new byte[signed.remaining()];
        signed.get(out);
        return out;
    }

    /** Closes Arrow data wherever it sits in a decoded value. */
    static void release(Object value) {
        if (value instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        } else if (value instanceof Collection<?> items) {
            items.forEach(ReaderFuzz::release);
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                release(k);
                release(v);
            });
        } else if (value instanceof Tuple t) {
            t.items().forEach(ReaderFuzz::release);
        } else if (value instanceof FrozenSet s) {
            s.items().forEach(ReaderFuzz::release);
        }
    }
}
