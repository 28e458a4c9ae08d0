package serreg.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The thread CPU time of one half of a round trip (or the whole), the least of many short
 * batches: on a machine shared with other work, a batch that ran undisturbed gives the code's
 * own cost, where JMH's per-iteration averages move with the load. Not a JMH benchmark; run as
 * {@code java -Xms2g -Xmx2g -cp serreg-bench.jar serreg.bench.CpuProbe <codec> <payload>
 * <enc|dec|rt> [warm-up seconds] [batches]}. Prints the least, first quartile and median
 * thread CPU time per call over batches of 2,000 calls, after the warm-up (default 6 s, 30
 * batches). The JIT compiles a method differently from one JVM to the next, so compare two
 * builds in several JVMs each, in turn.
 */
public final class CpuProbe {
    private static final int CALLS = 2_000;
    /** Where each call's result goes, so that the JIT cannot drop the call. */
    static volatile Object sink;

    private CpuProbe() {
    }

    public static void main(String[] args) {
        if (args.length < 3) {
            throw new IllegalArgumentException("usage: CpuProbe <codec> <payload> <enc|dec|rt> [warm-up seconds] [batches]");
        }
        String mode = args[2];
        if (!mode.equals("enc") && !mode.equals("dec") && !mode.equals("rt")) {
            throw new IllegalArgumentException("mode is enc, dec or rt, not " + mode);
        }
        double warmUp = args.length > 3 ? Double.parseDouble(args[3]) : 6;
        int batches = args.length > 4 ? Integer.parseInt(args[4]) : 30;
        Codec codec = Codec.named(args[0], args[1]);
        Object original = Payloads.build(args[1]);
        Object value = codec.adapt(args[1], original);
        byte[] frame = codec.encode(value);
        if (!Payloads.same(original, codec.unwrap(codec.decode(frame)))) {
            throw new IllegalStateException(args[0] + " does not round-trip " + args[1]);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long end = System.nanoTime() + (long) (warmUp * 1e9);
        while (System.nanoTime() < end) {
            batch(codec, mode, value, frame, 200);
        }
        double[] perCall = new double[batches];
        for (int b = 0; b < batches; b++) {
            long start = threads.getCurrentThreadCpuTime();
            batch(codec, mode, value, frame, CALLS);
            perCall[b] = (threads.getCurrentThreadCpuTime() - start) / (double) CALLS;
        }
        Arrays.sort(perCall);
        System.out.printf("%s %s %s: least %.0f ns, first quartile %.0f ns, median %.0f ns per call%n", args[0], args[1], mode,
                perCall[0], perCall[batches / 4], perCall[batches / 2]);
    }

    private static void batch(Codec codec, String mode, Object value, byte[] frame, int calls) {
        for (int i = 0; i < calls; i++) {
            sink = switch (mode) {
                case "enc" -> codec.encode(value);
                case "dec" -> codec.decode(frame);
                default -> codec.decode(codec.encode(value));
            };
        }
    }
}
