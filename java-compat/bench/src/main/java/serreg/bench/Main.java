package serreg.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link RoundTripBenchmark} with JMH's allocation profiler ({@code -prof gc}) and prints
 * one Markdown table: per payload and codec the median time per round trip (the median of the
 * measurement iterations), the bytes allocated per round trip ({@code gc.alloc.rate.norm}) and
 * the frame size, and serreg's time over the fastest peer's. Any JMH option may be given
 * ({@code -f1 -wi 3 -i 5 -w 1s -r 1s}, {@code -p payload=smallMap}, {@code -prof jfr}, ...);
 * {@code --sizes} prints only the frame sizes.
 */
public final class Main {
    private static final List<String> CODECS = List.of("serreg", "foryXlang", "foryJava", "msgpack");

    private Main() {
    }

    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        if (args.length == 1 && args[0].equals("--sizes")) {
            printSizes();
            return;
        }
        CommandLineOptions cli = new CommandLineOptions(args);
        OptionsBuilder builder = new OptionsBuilder();
        builder.parent(cli);
        if (cli.getIncludes().isEmpty()) {
            builder.include(RoundTripBenchmark.class.getName() + ".roundTrip$");
        }
        if (cli.getProfilers().stream().noneMatch(p -> p.getKlass().equals(GCProfiler.class.getName())
                || p.getKlass().equals("gc"))) {
            builder.addProfiler(GCProfiler.class);
        }
        if (cli.getProfilers().stream().noneMatch(p -> p.getKlass().equals(CpuTimeProfiler.class.getName()))) {
            builder.addProfiler(CpuTimeProfiler.class);
        }
        Options options = builder.build();
        Collection<RunResult> results = new Runner(options).run();
        printTable(results);
    }

    private static void printSizes() {
        System.out.println("| payload | " + String.join(" | ", CODECS) + " |");
        System.out.println("|---|---|---|---|---|");
        for (String payload : Payloads.NAMES) {
            StringBuilder row = new StringBuilder("| " + payload + " |");
            for (String codec : CODECS) {
                row.append(' ').append(String.format(Locale.ROOT, "%,d", RoundTripBenchmark.frameSize(codec, payload)))
                        .append(" |");
            }
            System.out.println(row);
        }
    }

    private record Cell(double medianUs, double cpuUs, double bytesPerOp) {
    }

    private static void printTable(Collection<RunResult> results) {
        Map<String, Map<String, Cell>> cells = new LinkedHashMap<>();
        for (RunResult r : results) {
            if (!r.getParams().getBenchmark().endsWith(".roundTrip")) {
                continue; // encode / decode alone: JMH's own summary above has them
            }
            String payload = r.getParams().getParam("payload");
            String codec = r.getParams().getParam("serializer");
            double median = r.getPrimaryResult().getStatistics().getPercentile(50.0);
            Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            Result<?> cpu = r.getSecondaryResults().get("cpu.time.norm");
            cells.computeIfAbsent(payload, p -> new LinkedHashMap<>()).put(codec, new Cell(median,
                    cpu == null ? Double.NaN : cpu.getScore() / 1000, alloc == null ? Double.NaN : alloc.getScore()));
        }
        System.out.println();
        System.out.println("Per round trip: median wall time, CPU time (the JVM's, per op), bytes allocated; then the"
                + " frame size. Last columns: serreg over the fastest peer, by wall median and by CPU time.");
        System.out.println();
        List<String> present = new ArrayList<>(CODECS);
        StringBuilder head = new StringBuilder("| payload |");
        for (String codec : present) {
            head.append(' ').append(codec).append(": wall / CPU / alloc / frame |");
        }
        System.out.println(head + " serreg / fastest peer (wall) | (CPU) |");
        System.out.println("|---" + "|---".repeat(present.size() + 2) + "|");
        for (String payload : Payloads.NAMES) {
            Map<String, Cell> row = cells.get(payload);
            if (row == null) {
                continue;
            }
            StringBuilder line = new StringBuilder("| " + payload + " |");
            double fastestWall = Double.POSITIVE_INFINITY;
            double fastestCpu = Double.POSITIVE_INFINITY;
            for (String codec : present) {
                Cell c = row.get(codec);
                if (c == null) {
                    line.append(" - |");
                    continue;
                }
                if (!codec.equals("serreg")) {
                    fastestWall = Math.min(fastestWall, c.medianUs());
                    fastestCpu = Math.min(fastestCpu, c.cpuUs());
                }
                line.append(String.format(Locale.ROOT, " %s / %s / %s B / %s B |", time(c.medianUs()), time(c.cpuUs()),
                        bytes(c.bytesPerOp()), bytes(RoundTripBenchmark.frameSize(codec, payload))));
            }
            Cell serreg = row.get("serreg");
            if (serreg == null || Double.isInfinite(fastestWall)) {
                line.append(" - | - |");
            } else {
                line.append(String.format(Locale.ROOT, " %.2fx | %.2fx |", serreg.medianUs() / fastestWall,
                        serreg.cpuUs() / fastestCpu));
            }
            System.out.println(line);
        }
    }

    private static String time(double us) {
        return Double.isNaN(us) ? "?" : us >= 100 ? String.format(Locale.ROOT, "%,.0f us", us)
                : String.format(Locale.ROOT, "%.3g us", us);
    }

    private static String bytes(double b) {
        return Double.isNaN(b) ? "?" : String.format(Locale.ROOT, "%,.0f", b);
    }
}
