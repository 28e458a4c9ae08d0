"""`serreg bench`'s own timing loop, run as it is, with what each sample did written beside its wall time.

For every sample the suite takes (one peer, one way, one step: ``measure.sample`` unchanged), this
records the wall time per call, the thread's CPU time per call (``time.thread_time``: the time the
thread ran, so a shared machine's preemption drops out), and the garbage collections (per generation,
counted by a ``gc.callbacks`` hook) that ran during the sample and since the sample before it. Prints
per (payload, peer, way) the medians of the round-trip samples: wall, CPU, wall over CPU, collections.

    python benchmarks/bench_wall_trace.py dataclasses_1k,dataclass [--peers msgspec,pyfory] [--repeats 7]
        [--json trace.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from typing import Any, Callable

from serreg.bench import measure, suite

COLLECTIONS = [0, 0, 0]


def _count(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        COLLECTIONS[info["generation"]] += 1


def trace(payloads: list[str], peers: Any, repeats: int) -> list[dict[str, Any]]:
    """Run the suite (no memory runs, no instruction counts) and return one record per sample."""
    names: dict[int, tuple[str, str, str]] = {}
    met = [0]  # payloads begun: the suite checks serreg first on each, in the order given
    records: list[dict[str, Any]] = []
    after_last = [0, 0, 0]
    real_operations, real_sample = getattr(suite, "operations"), measure.sample

    def operations(peer: Any, value: Any) -> dict[Any, Any]:
        if peer.name == suite.REFERENCE:
            met[0] += 1
        made: dict[Any, Any] = real_operations(peer, value)
        for (way, step), operation in made.items():
            if callable(operation):
                names[id(operation)] = (peer.name, way, step)
        return made

    def sample(operation: Callable[[], object], number: int) -> float:
        before = list(COLLECTIONS)
        cpu = time.thread_time()
        seconds = real_sample(operation, number)
        cpu = time.thread_time() - cpu
        records.append({
            "payload": payloads[met[0] - 1], "key": names.get(id(operation)), "calls": number,
            "wall_us": seconds * 1e6, "cpu_us": cpu / number * 1e6,
            "gc_during": [a - b for a, b in zip(COLLECTIONS, before)],
            "gc_before": [a - b for a, b in zip(before, after_last)],
        })
        after_last[:] = COLLECTIONS
        return seconds

    gc.callbacks.append(_count)
    setattr(suite, "operations", operations)  # the suite looks it up by this name
    measure.sample = sample
    try:
        suite.run_suite(payloads, peers, memory=False, progress=False, repeats=repeats)
    finally:
        setattr(suite, "operations", real_operations)
        measure.sample = real_sample
        gc.callbacks.remove(_count)
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("payloads")
    parser.add_argument("--peers", default=None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    peers = None if args.peers is None else ["serreg"] + [p for p in args.peers.split(",") if p != "serreg"]
    records = trace(args.payloads.split(","), peers, args.repeats)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(records, out)
    rows: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for record in records:
        if record["key"] is not None and record["key"][2] == "round_trip":
            rows.setdefault((record["payload"], record["key"][0], record["key"][1]), []).append(record)
    print("| payload | peer | way | wall median (us) | thread CPU median (us) | wall/CPU | gc runs in samples | gc runs between |")
    print("|---|---|---|---|---|---|---|---|")
    for (payload, peer, way), samples in rows.items():
        wall = statistics.median(r["wall_us"] for r in samples)
        cpu = statistics.median(r["cpu_us"] for r in samples)
        during = sum(sum(r["gc_during"]) for r in samples)
        between = sum(sum(r["gc_before"]) for r in samples)
        print(f"| {payload} | {peer} | {way} | {wall:.1f} | {cpu:.1f} | {wall / cpu:.2f} | {during} | {between} |")


if __name__ == "__main__":
    main()
