"""Round trip of plain payloads: serreg (result object and bytes) against msgspec, msgpack, pickle, pyfory.

A developer script for the compiled core (not shipped). Two figures per
payload and implementation:

- instructions per round trip under valgrind's callgrind:
  (instructions of a run with 3N round trips - those of a run with N) / 2N,
  which cancels interpreter start-up and imports;
- the median wall time of a round trip (``--wall``), all peers in one run.

    python benchmarks/bench_core.py [--callgrind [--scale K]] [--wall] [--payloads small_dict,ints_1k]

``--scale K`` runs K times as many round trips under callgrind (less noise
from the interpreter's own occasional work, such as garbage collection).

``SERREG_PURE_PYTHON=1`` measures the pure-Python backend.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import pickle
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid


def small_dict():
    return {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": True}


def ints_1k():
    return list(range(1000))


def strs_10k():
    return [f"s{i}" for i in range(10000)]


def records_1k():
    return [{"id": i, "name": f"user{i}", "score": i * 0.5, "tags": ["a", "b"]} for i in range(1000)]


def nested_mixed():
    return [
        {
            "id": (i, i + 1, "x"),
            "tags": {"a", "b", i},
            "when": datetime.datetime(2024, 1, 2, 3, 4, 5, i),
            "day": datetime.date(2024, 1, 1 + i % 28),
            "blob": bytes([i % 256]) * 20,
            "none": None,
            "key": uuid.UUID(int=i),
            "big": 2**70 + i,
        }
        for i in range(100)
    ]


PAYLOADS = {f.__name__: f for f in (small_dict, ints_1k, strs_10k, records_1k, nested_mixed)}
# Round trips per callgrind run (N; the second run does 3N).
ITERATIONS = {"small_dict": 1000, "ints_1k": 50, "strs_10k": 5, "records_1k": 5, "nested_mixed": 10}


def implementations(payload: str) -> dict:
    """name -> round-trip function (value -> value) for the implementations that can carry ``payload``."""
    import serreg

    impls = {
        "serreg": lambda v: serreg.deserialize(serreg.serialize(v)),
        "serreg to_bytes": lambda v: serreg.deserialize(serreg.serialize(v).to_bytes()),
        "pickle5": lambda v: pickle.loads(pickle.dumps(v, protocol=5)),
    }
    if payload != "nested_mixed":
        import msgpack
        import msgspec

        enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder()
        impls["msgspec"] = lambda v: dec.decode(enc.encode(v))
        impls["msgpack"] = lambda v: msgpack.unpackb(msgpack.packb(v))
    try:
        import pyfory

        fory = pyfory.Fory(xlang=False, ref=False, strict=False)
        impls["pyfory"] = lambda v: fory.deserialize(fory.serialize(v))
    except ImportError:
        pass
    return impls


def child(impl: str, payload: str, iterations: int) -> None:
    value = PAYLOADS[payload]()
    run = implementations(payload)[impl]
    run(value)
    for _ in range(iterations):
        run(value)


def callgrind_instructions(impl: str, payload: str, iterations: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
             "--child", impl, payload, str(iterations)],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        with open(out) as f:
            match = re.search(r"^summary:\s+(\d+)", f.read(), re.M)
        return int(match.group(1))


def wall_median(run, value, samples: int = 15) -> float:
    """Median seconds per round trip over ``samples`` samples of about 20 ms, garbage collector paused."""
    gc.disable()
    try:
        return _wall_median(run, value, samples)
    finally:
        gc.enable()


def _wall_median(run, value, samples: int) -> float:
    run(value)
    start = time.perf_counter()
    run(value)
    number = max(1, int(0.02 / max(time.perf_counter() - start, 1e-7)))
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(number):
            run(value)
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--callgrind", action="store_true", help="instructions per round trip")
    parser.add_argument("--wall", action="store_true", help="median wall time per round trip")
    parser.add_argument("--payloads", default=",".join(PAYLOADS))
    parser.add_argument("--impls", default="", help="comma-separated subset (default: all)")
    parser.add_argument("--scale", type=int, default=1, help="callgrind: N times the round trips of each run")
    args = parser.parse_args()
    if args.child:
        impl, payload, iterations = args.child
        child(impl, payload, int(iterations))
        return
    import serreg.codec

    print(f"serreg codec backend: {getattr(serreg.codec, 'BACKEND', 'pure (main)')}")
    wanted = [name for name in args.impls.split(",") if name]
    for payload in args.payloads.split(","):
        value = PAYLOADS[payload]()
        for impl, run in implementations(payload).items():
            if wanted and impl not in wanted:
                continue
            cells = [f"{payload:13} {impl:17}"]
            try:
                if run(value) != value:
                    raise ValueError("round trip changed the value")
            except Exception as error:  # a peer that cannot carry this payload
                print("  ".join(cells + [f"fails: {type(error).__name__}: {str(error)[:60]}"]), flush=True)
                continue
            if args.callgrind:
                n = ITERATIONS[payload] * args.scale
                low = callgrind_instructions(impl, payload, n)
                high = callgrind_instructions(impl, payload, 3 * n)
                cells.append(f"{(high - low) / (2 * n):14,.0f} instr")
            if args.wall:
                cells.append(f"{wall_median(run, value) * 1e6:10.2f} us")
            print("  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
