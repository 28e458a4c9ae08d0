package serreg.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round trip of one payload through one codec: encode to a contiguous byte[], decode it back.
 * Every (payload, serializer) pair runs in its own forked JVM, so no codec's code shapes another's
 * profile; JMH orders the pairs by parameter name, so the four serializers of one payload run one
 * after the other (close in time on a shared machine). The setup checks that the codec gives back the same data, so a codec that loses data
 * cannot win. Defaults: 10 x 1 s warm-up (on a shared 2-core machine 3 s left serreg's code
 * partly in C1-compiled form: its round trip kept speeding up for 10 s), 7 x 1 s measurement,
 * one fork; {@link Main} adds the allocation and CPU-time profilers and prints the table.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 7, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class RoundTripBenchmark {
    @Param({"smallMap", "longs1k", "strings10k", "records1k", "doubles1M", "points1k", "structs1k", "structsFloat1k",
            "pointStructs1k"})
    public String payload;

    @Param({"serreg", "foryXlang", "foryJava", "msgpack"})
    public String serializer;

    private Codec impl;
    private Object value;
    private byte[] encoded;

    @Setup
    public void setUp() {
        impl = Codec.named(serializer, payload);
        Object original = Payloads.build(payload);
        value = impl.adapt(payload, original);
        encoded = impl.encode(value);
        Object back = impl.unwrap(impl.decode(encoded));
        if (!Payloads.same(original, back)) {
            throw new IllegalStateException(serializer + " does not round-trip " + payload + ": got " + back);
        }
    }

    @Benchmark
    public Object roundTrip() {
        return impl.decode(impl.encode(value));
    }

    /** Encoding alone (not in the default run: {@code Main} includes only {@link #roundTrip}). */
    @Benchmark
    public byte[] encode() {
        return impl.encode(value);
    }

    /** Decoding alone, of the frame the setup encoded. */
    @Benchmark
    public Object decode() {
        return impl.decode(encoded);
    }

    /** The frame a codec writes for a payload (for the table's frame sizes). */
    static int frameSize(String codec, String payload) {
        Codec c = Codec.named(codec, payload);
        return c.encode(c.adapt(payload, Payloads.build(payload))).length;
    }
}
