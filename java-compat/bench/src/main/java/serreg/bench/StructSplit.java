package serreg.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Where a struct round trip's time goes, without JMH: encoding and decoding of the
 * {@code structs1k} payload measured apart, for serreg and Fory Java, beside serreg's encoding and
 * decoding of the same 3,000 numbers as a plain {@code List<Long>} (what the generic codec costs
 * for the values alone), and serreg's round trip of one point in a frame of its own (what a
 * frame costs beyond its instances). One JVM; each figure is the fastest of 20 batches of 50 calls, printed
 * every 5 rounds, so that the steady state shows even on a busy machine (the minimum is the least
 * disturbed batch, not a typical one). Run: {@code java -cp bench/target/serreg-bench.jar
 * serreg.bench.StructSplit [rounds]}.
 */
public final class StructSplit {
    private static final int BATCHES = 20;
    private static final int CALLS = 50;

    private StructSplit() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        Codec serreg = Codec.named("serreg", "structs1k");
        Codec fory = Codec.named("foryJava", "structs1k");
        Object points = Payloads.build("structs1k");
        List<Long> longs = new ArrayList<>();
        for (StructPoint p : Payloads.structPoints(1_000)) {
            longs.add(p.x());
            longs.add(p.y());
            longs.add(p.z());
        }
        byte[] serregFrame = serreg.encode(points);
        byte[] foryFrame = fory.encode(points);
        byte[] longsFrame = serreg.encode(longs);
        if (!Payloads.same(points, serreg.decode(serregFrame)) || !Payloads.same(points, fory.decode(foryFrame))
                || !longs.equals(serreg.decode(longsFrame))) {
            throw new IllegalStateException("a codec does not round-trip the payload");
        }
        StructPoint one = new StructPoint(1, 200, 70_000);
        List<Supplier<Object>> cases = List.of(() -> serreg.encode(points), () -> serreg.decode(serregFrame),
                () -> fory.encode(points), () -> fory.decode(foryFrame), () -> serreg.encode(longs),
                () -> serreg.decode(longsFrame), () -> serreg.decode(serreg.encode(one)));
        for (int round = 1; round <= rounds; round++) {
            double[] us = new double[cases.size()];
            for (int k = 0; k < us.length; k++) {
                us[k] = fastestBatch(cases.get(k)) / 1000.0 / CALLS;
            }
            if (round % 5 == 0) {
                System.out.printf(Locale.ROOT, "round %d: structs1k serreg encode %.1f us, decode %.1f us | foryJava encode"
                        + " %.1f us, decode %.1f us | serreg List<Long> of 3,000 encode %.1f us, decode %.1f us"
                        + " | serreg one point round trip %.2f us%n", round, us[0], us[1], us[2], us[3], us[4], us[5], us[6]);
            }
        }
    }

    /** Where each call's result goes, so that the JIT cannot drop the call. */
    private static volatile Object sink;

    private static long fastestBatch(Supplier<Object> call) {
        long best = Long.MAX_VALUE;
        for (int b = 0; b < BATCHES; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < CALLS; i++) {
                sink = call.get();
            }
            best = Math.min(best, System.nanoTime() - start);
        }
        return best;
    }
}
