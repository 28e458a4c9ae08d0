"""Hand a value from one process to another and read every element once: serreg.shm against the peers.

Each case runs in a fresh sender process that builds the value (a float64
ndarray, or an Arrow table of an int64 and a float64 column) and spawns a fresh
receiver, so the peak RSS of both belongs to that case alone. Per repetition the
sender takes t0, hands the value over, and the receiver takes t_got when it holds
the value and t_read after reading every element once (``ndarray.sum``,
``pyarrow.compute.sum`` per column); both clocks are CLOCK_MONOTONIC, so the
times are comparable across the two processes.

Methods:
  shm     serreg.shm.put in the sender, the handle through a multiprocessing pipe, serreg.shm.get
          (release=True) in the receiver: a mapping of the region, buffers read in place
  shm-ready  the value is already in a region (put before the clock starts, as a value built with
          serreg.shm.empty or received from another process is): the handle, then serreg.shm.get
  pipe    serreg's frame written through an OS pipe (result.write_to), read whole (read_frame_bytes),
          deserialize
  queue   multiprocessing.Queue (pickle, as ProcessPoolExecutor sends arguments)
  arrow   an Arrow IPC file in /dev/shm (RecordBatch file, or a Tensor for the ndarray), read with
          pa.memory_map in the receiver (zero-copy)
  ray     ray.put in the driver, an actor method receiving the ObjectRef (--ray; starts a local Ray)

Columns: median over the repetitions (after one warm-up) of the handoff latency
(t_got - t0) and of handoff + read (t_read - t0), the ratio of the latter to the
pipe's, CPU seconds of both processes per repetition, and the peak RSS of each
process (VmHWM) above what it held before the first handoff, in MiB. RSS counts
the pages of shared memory a process touched; the receiver's private memory
(RssAnon) while it still holds the value is given too: that is where a copy shows.

    nice -n 19 python benchmarks/bench_handoff.py [--sizes 1KB,1MB,100MB,1GB] [--methods shm,pipe,queue,arrow]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time

SIZES = {"1KB": 1_000, "1MB": 1_000_000, "100MB": 100_000_000, "1GB": 1_000_000_000}
REPS = {"1KB": 15, "1MB": 15, "100MB": 5, "1GB": 3}
METHODS = ["shm", "shm-ready", "pipe", "queue", "arrow"]


def make(kind, nbytes):
    import numpy as np
    import pyarrow as pa

    if kind == "ndarray":
        return np.arange(max(nbytes // 8, 1), dtype=np.float64)
    rows = max(nbytes // 16, 1)
    return pa.table({"i": np.arange(rows, dtype=np.int64), "x": np.arange(rows, dtype=np.float64)})


def read_all(value):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(value, pa.Table):
        return sum(float(pc.sum(column).as_py()) for column in value.columns)
    if isinstance(value, pa.Tensor):
        return float(value.to_numpy().sum())
    return float(np.asarray(value).sum())


def memory():
    """(peak RSS, private RSS) of this process in bytes, from /proc/self/status."""
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if name in ("VmHWM", "RssAnon"):
                fields[name] = int(rest.split()[0]) * 1024
    return fields["VmHWM"], fields["RssAnon"]


def cpu():
    return time.process_time()  # every thread of the process (the Queue's feeder thread too)


def arrow_path():
    return os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else "/tmp", f"bench-handoff-{os.getpid()}.arrow")


def receiver(method, control, data):
    import numpy as np  # noqa: F401  (imports before the baseline)
    import pyarrow as pa
    import serreg
    from serreg.wire.frame import read_frame_bytes

    stream = os.fdopen(data.fileno(), "rb", closefd=False) if method == "pipe" else None
    base_peak, _ = memory()
    control.send(base_peak)
    while True:
        c0 = cpu()
        if method == "queue":
            value = data.get()
            if value is None:
                break
        elif method == "pipe":
            frame = read_frame_bytes(stream)
            if frame is None:
                break
            value = serreg.deserialize(frame)
        else:
            message = control.recv()
            if message is None:
                break
            if method == "shm":
                value = serreg.shm.get(message, release=True)
            elif method == "shm-ready":
                value = serreg.shm.get(message)
            else:
                source = pa.memory_map(message)
                value = pa.ipc.read_tensor(source) if message.endswith(".tensor") else pa.ipc.open_file(source).read_all()
        t_got = time.perf_counter()
        total = read_all(value)
        t_read = time.perf_counter()
        private = memory()[1]
        del value
        frame = None
        control.send((t_got, t_read, total, private, cpu() - c0))
    control.send(memory())


def send(method, value, kind, data, control, pa, serreg, sink):
    if method == "queue":
        data.put(value)
    elif method == "pipe":
        serreg.serialize(value).write_to(sink)
        sink.flush()
    elif method == "shm":
        control.send(serreg.shm.put(value))
    elif method == "shm-ready":
        control.send(value)  # the handle of a region written before the clock started
    else:
        path = arrow_path() + (".tensor" if kind == "ndarray" else "")
        with pa.OSFile(path, "wb") as out:
            if kind == "ndarray":
                pa.ipc.write_tensor(pa.Tensor.from_numpy(value), out)
            else:
                with pa.ipc.new_file(out, value.schema) as writer:
                    writer.write_table(value)
        control.send(path)
        return path
    return None


def run_case(method, kind, size, reps):
    import pyarrow as pa
    import serreg

    ctx = mp.get_context("spawn")
    control, child_control = ctx.Pipe()
    if method == "queue":
        data = ctx.Queue()
        child_data = data
    else:
        child_data, data = ctx.Pipe(duplex=False)
    sink = None
    if method == "pipe":
        import fcntl

        fcntl.fcntl(data.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
        sink = os.fdopen(data.fileno(), "wb", closefd=False)
    value = make(kind, SIZES[size])
    expected = read_all(value)
    if method == "shm-ready":
        value = serreg.shm.put(value)
    process = ctx.Process(target=receiver, args=(method, child_control, child_data))
    process.start()
    receiver_base = control.recv()
    sender_base, _ = memory()
    rows = []
    for rep in range(reps + 1):
        c0 = cpu()
        t0 = time.perf_counter()
        path = send(method, value, kind, data, control, pa, serreg, sink)
        t_got, t_read, total, private, receiver_cpu = control.recv()
        sender_cpu = cpu() - c0
        if path:
            os.unlink(path)
        assert total == expected, (total, expected)
        if rep:
            rows.append((t_got - t0, t_read - t0, private, sender_cpu + receiver_cpu))
    if method == "queue":
        data.put(None)
    elif method == "pipe":
        sink.close()
        data.close()
    else:
        control.send(None)
    receiver_peak, _ = control.recv()
    process.join()
    if method == "shm-ready":
        value.release()
    sender_peak, _ = memory()
    return {
        "method": method, "kind": kind, "size": size, "reps": reps,
        "handoff": statistics.median(r[0] for r in rows),
        "total": statistics.median(r[1] for r in rows),
        "cpu": statistics.median(r[3] for r in rows),
        "receiver_private": max(r[2] for r in rows),
        "sender_peak_extra": sender_peak - sender_base,
        "receiver_peak_extra": receiver_peak - receiver_base,
    }


def run_ray_case(kind, size, reps):
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)

    @ray.remote
    class Reader:
        def base(self):
            return memory()[0]

        def read(self, value):
            t_got = time.perf_counter()
            total = read_all(value)
            return t_got, time.perf_counter(), total, memory()[1], memory()[0]

    value = make(kind, SIZES[size])
    expected = read_all(value)
    reader = Reader.remote()
    receiver_base = ray.get(reader.base.remote())
    sender_base, _ = memory()
    rows = []
    for rep in range(reps + 1):
        t0 = time.perf_counter()
        ref = ray.put(value)
        t_got, t_read, total, private, receiver_peak = ray.get(reader.read.remote(ref))
        del ref
        assert total == expected
        if rep:
            rows.append((t_got - t0, t_read - t0, private))
    sender_peak, _ = memory()
    ray.shutdown()
    return {
        "method": "ray", "kind": kind, "size": size, "reps": reps,
        "handoff": statistics.median(r[0] for r in rows), "total": statistics.median(r[1] for r in rows),
        "cpu": None, "receiver_private": max(r[2] for r in rows),
        "sender_peak_extra": sender_peak - sender_base, "receiver_peak_extra": receiver_peak - receiver_base,
    }


def available_memory():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def table(results):
    def ms(s):
        return f"{s * 1e3:.3f}" if s < 0.01 else f"{s * 1e3:.1f}"

    def mib(b):
        return f"{b / 2**20:.0f}"

    pipe = {(r["kind"], r["size"]): r["total"] for r in results if r["method"] == "pipe"}
    lines = ["| value | size | method | handoff ms | handoff + read ms | / pipe | CPU ms (both) | sender peak +MiB | "
             "receiver peak +MiB | receiver private MiB |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        ratio = pipe.get((r["kind"], r["size"]))
        lines.append(
            f"| {r['kind']} | {r['size']} | {r['method']} | {ms(r['handoff'])} | {ms(r['total'])} | "
            f"{r['total'] / ratio:.3g} | {'-' if r['cpu'] is None else ms(r['cpu'])} | {mib(r['sender_peak_extra'])} | "
            f"{mib(r['receiver_peak_extra'])} | {mib(r['receiver_private'])} |" if ratio else
            f"| {r['kind']} | {r['size']} | {r['method']} | {ms(r['handoff'])} | {ms(r['total'])} | - | - | "
            f"{mib(r['sender_peak_extra'])} | {mib(r['receiver_peak_extra'])} | {mib(r['receiver_private'])} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1KB,1MB,100MB,1GB")
    parser.add_argument("--kinds", default="ndarray,table")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--ray", action="store_true", help="add Ray put/get (starts a local Ray per case)")
    parser.add_argument("--json", help="write the results here too")
    parser.add_argument("--case", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        method, kind, size = args.case
        result = run_ray_case(kind, size, REPS[size]) if method == "ray" else run_case(method, kind, size, REPS[size])
        print(json.dumps(result))
        return
    methods = args.methods.split(",") + (["ray"] if args.ray else [])
    cases = [(size, (method, kind, size)) for size in args.sizes.split(",")
             for kind in args.kinds.split(",") for method in methods]
    results = run_cases(__file__, cases)
    print(table(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def run_cases(script, cases):
    """Run each case ``(size, argv)`` as ``script --case *argv`` in a child; skip it where memory is short.

    Returns the children's JSON results; a failed or skipped case is reported on stderr.
    """
    results = []
    for size, argv in cases:
        label = " ".join(argv)
        need = 5 * SIZES[size] + (4 << 30)
        if available_memory() < need:
            print(f"skipped {label}: {available_memory() >> 20} MiB available, {need >> 20} wanted", file=sys.stderr)
            continue
        proc = subprocess.run([sys.executable, script, "--case", *argv], capture_output=True, text=True)
        if proc.returncode:
            print(f"{label} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
            continue
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    return results


if __name__ == "__main__":
    main()
