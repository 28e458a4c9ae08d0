package serreg.bench;

import example.Point;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The payloads of the round-trip benchmark (issue 18), the same values as the Python suite's
 * {@code benchmarks/payloads.py} where both have them. Each is built once per trial; nothing in
 * them depends on the codec. {@link #same} tells whether a decoded value equals the original
 * (so a codec that drops or changes data fails the benchmark's setup instead of winning it).
 */
final class Payloads {
    /** Payload names, in the order of the results table. */
    static final List<String> NAMES = List.of("smallMap", "longs1k", "strings10k", "records1k", "doubles1M", "points1k", "structs1k",
            "structsFloat1k", "pointStructs1k");

    private Payloads() {
    }

    static Object build(String name) {
        return switch (name) {
            case "smallMap" -> smallMap();
            case "longs1k" -> longs(1_000);
            case "strings10k" -> strings(10_000);
            case "records1k" -> records(1_000);
            case "doubles1M" -> doubles(1_000_000);
            case "points1k" -> points(1_000);
            case "structs1k" -> structPoints(1_000);
            case "structsFloat1k" -> structReadings(1_000);
            case "pointStructs1k" -> structLabelPoints(1_000);
            default -> throw new IllegalArgumentException("unknown payload " + name + "; known: " + NAMES);
        };
    }

    /** {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": true}. */
    static Map<String, Object> smallMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", 1L);
        m.put("b", 2.5);
        m.put("c", "hello");
        m.put("d", new ArrayList<>(List.of(1L, 2L, 3L)));
        m.put("e", true);
        return m;
    }

    /** 0, 1, ..., n-1 as Longs. */
    static List<Long> longs(int n) {
        List<Long> out = new ArrayList<>(n);
        for (long i = 0; i < n; i++) {
            out.add(i);
        }
        return out;
    }

    /** "s0", "s1", ... */
    static List<String> strings(int n) {
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add("s" + i);
        }
        return out;
    }

    /** {"id": i, "name": "user{i}", "score": i * 0.5, "tags": ["a", "b"]}. */
    static List<Map<String, Object>> records(int n) {
        List<Map<String, Object>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", (long) i);
            r.put("name", "user" + i);
            r.put("score", i * 0.5);
            r.put("tags", new ArrayList<>(List.of("a", "b")));
            out.add(r);
        }
        return out;
    }

    /** 0.0, 0.25, 0.5, ... as a double[]; each codec wraps it its own way (serreg: an NDArray). */
    static double[] doubles(int n) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = i * 0.25;
        }
        return out;
    }

    /** Point(i, -i / 2, "p{i}"). */
    static List<Point> points(int n) {
        List<Point> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Point(i, -i / 2.0, "p" + i));
        }
        return out;
    }

    /** 1,000 three-field structs, the Python suite's bench.Point (benchmarks/bench_structs.py). */
    static List<StructPoint> structPoints(int n) {
        List<StructPoint> out = new ArrayList<>(n);
        for (long i = 0; i < n; i++) {
            out.add(new StructPoint(i, i * 2, i * 3));
        }
        return out;
    }

    /** 1,000 four-field structs (int64, float64, float32, bool): the float and bool columns' payload. */
    static List<StructReading> structReadings(int n) {
        List<StructReading> out = new ArrayList<>(n);
        for (long i = 0; i < n; i++) {
            out.add(new StructReading(i, i * 0.25 - 100.0, (float) (i * 1.5), i % 3 == 0));
        }
        return out;
    }

    /** The values of {@link #points} as structs: StructLabelPoint(i, -i / 2, "p{i}"). */
    static List<StructLabelPoint> structLabelPoints(int n) {
        List<StructLabelPoint> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new StructLabelPoint(i, -i / 2.0, "p" + i));
        }
        return out;
    }

    /** The little-endian bytes of a double[] (what an NDArray of dtype "<f8" holds). */
    static ByteBuffer littleEndian(double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asDoubleBuffer().put(values);
        return b;
    }

    /** Whether {@code decoded} holds the same data as {@code original} (as each codec represents it). */
    static boolean same(Object original, Object decoded) {
        if (original instanceof double[] a) {
            if (decoded instanceof double[] d) {
                return Arrays.equals(a, d);
            }
            if (decoded instanceof ByteBuffer b) {
                return b.duplicate().order(ByteOrder.LITTLE_ENDIAN).equals(littleEndian(a));
            }
            return false;
        }
        return original.equals(decoded);
    }
}
