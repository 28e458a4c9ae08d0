"""Hand a value between Python and Java and read every element once: shared memory against a pipe.

The Java side is the fixture's ``handoff`` mode (java-compat/fixture, HandoffMode): a fresh JVM
per case, commands on its stdin. Times are CLOCK_MONOTONIC on both sides (Python's
time.perf_counter, Java's System.nanoTime), so t_got - t0 and t_read - t0 span the two processes.

  py->java shm   serreg.shm.put in Python; Java maps the region (MappedFrames.map), decodes in place
  py->java pipe  the frame written into a FIFO by Python; Java reads it into a direct buffer, decodes
  java->py shm   SharedRegions.put in Java; Python serreg.shm.get(release=True)
  java->py pipe  the frame written into a FIFO by Java; Python read_frame_bytes + deserialize

Values as in bench_handoff.py: a float64 ndarray, or an Arrow table of int64 and float64 columns.
Peak RSS: VmHWM of each process above its level before the first handoff, in MiB.

    nice -n 19 python benchmarks/bench_handoff_java.py [--sizes 1KB,1MB,100MB,1GB]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_handoff import REPS, SIZES, make, memory, read_all, run_cases  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
JAR = ROOT / "java-compat" / "fixture" / "target" / "serreg-fixture.jar"
WARMUP = {"1KB": 200, "1MB": 50, "100MB": 2, "1GB": 1}  # the JIT compiles the Java side during these


def java_peak(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


class Java:
    def __init__(self):
        self.process = subprocess.Popen(
            ["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-jar", str(JAR), "handoff"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.answer()

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self):
        return self.process.stdout.readline().split()

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def run_case(direction, method, kind, size):
    import serreg
    from serreg.wire.frame import read_frame_bytes

    folder = tempfile.mkdtemp(prefix="handoff-")
    fifo = os.path.join(folder, "frame.fifo")
    os.mkfifo(fifo)
    java = Java()
    rows = max(SIZES[size] // (8 if kind == "ndarray" else 16), 1)
    value = make(kind, SIZES[size]) if direction == "py->java" else None
    if direction == "java->py":
        assert java.ask(f"make {kind} {rows}") == ["ok"]
    expected = read_all(make(kind, SIZES[size]))
    java_base, py_base = java_peak(java.process.pid), memory()[0]
    rows_out = []
    warmup = WARMUP[size]
    for rep in range(warmup + REPS[size]):
        if direction == "py->java":
            t0 = time.perf_counter()
            if method == "shm":
                handle = serreg.shm.put(value, cross_language=True)
                t_got, t_read, total = java.ask(f"read {os.path.join(serreg.shm.directory(), handle.name)}")
                handle.release()
            else:
                java.send(f"read-fifo {fifo}")
                with open(fifo, "wb") as f:
                    serreg.serialize(value, cross_language=True).write_to(f)
                t_got, t_read, total = java.answer()
            t_got, t_read, total = int(t_got) / 1e9, int(t_read) / 1e9, float(total)
        else:
            if method == "shm":
                t0, name, length = java.ask("put-shm")
                got = serreg.shm.get(serreg.shm.Handle(name, int(length)), release=True)
            else:
                java.send(f"write-fifo {fifo}")
                with open(fifo, "rb") as f:
                    got = serreg.deserialize(read_frame_bytes(f))
                (t0,) = java.answer()
            t0 = int(t0) / 1e9
            t_got = time.perf_counter()
            total = read_all(got)
            t_read = time.perf_counter()
            del got
        assert total == expected, (total, expected)
        if rep >= warmup:
            rows_out.append((t_got - t0, t_read - t0))
    java_top, py_top = java_peak(java.process.pid), memory()[0]
    java.close()
    os.unlink(fifo)
    os.rmdir(folder)
    return {"direction": direction, "method": method, "kind": kind, "size": size,
            "handoff": statistics.median(r[0] for r in rows_out), "total": statistics.median(r[1] for r in rows_out),
            "java_peak_extra": java_top - java_base, "python_peak_extra": py_top - py_base}


def table(results):
    def ms(s):
        return f"{s * 1e3:.3f}" if s < 0.01 else f"{s * 1e3:.1f}"

    pipe = {(r["direction"], r["kind"], r["size"]): r["total"] for r in results if r["method"] == "pipe"}
    lines = ["| direction | value | size | method | handoff ms | handoff + read ms | / pipe | Python peak +MiB | "
             "Java peak +MiB |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        base = pipe.get((r["direction"], r["kind"], r["size"]))
        lines.append(f"| {r['direction']} | {r['kind']} | {r['size']} | {r['method']} | {ms(r['handoff'])} | "
                     f"{ms(r['total'])} | {r['total'] / base if base else float('nan'):.3g} | "
                     f"{r['python_peak_extra'] / 2**20:.0f} | {r['java_peak_extra'] / 2**20:.0f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1KB,1MB,100MB,1GB")
    parser.add_argument("--kinds", default="ndarray,table")
    parser.add_argument("--json")
    parser.add_argument("--case", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(*args.case)))
        return
    cases = [(size, (direction, method, kind, size)) for size in args.sizes.split(",")
             for kind in args.kinds.split(",") for direction in ("py->java", "java->py") for method in ("shm", "pipe")]
    results = run_cases(__file__, cases)
    print(table(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
