package serreg.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time of the benchmark JVM per operation ({@code cpu.time.norm}, ns/op): the process's CPU
 * time over an iteration (benchmark thread, GC and compiler threads alike) divided by the
 * operations measured. On a machine shared with other work, wall time also counts the time the
 * thread waited for a core; CPU time does not, so ratios in CPU time move much less from run to
 * run (the role callgrind's instruction counts play for the Python suite).
 */
public final class CpuTimeProfiler implements InternalProfiler {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private long startCpu;

    @Override
    public String getDescription() {
        return "process CPU time per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        startCpu = OS.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        long cpu = OS.getProcessCpuTime() - startCpu;
        long ops = result.getMetadata().getMeasuredOps();
        double perOp = ops == 0 ? Double.NaN : (double) cpu / ops;
        return List.of(new ScalarResult("cpu.time.norm", perOp, "ns/op", AggregationPolicy.AVG));
    }
}
