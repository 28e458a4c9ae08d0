"""Run the payloads through serreg and its peers, interleaved, and collect medians.

For each payload, every peer's value is first checked for a correct, type-exact
round trip (in-process and through the frame). Then, ``repeats`` times, each
operation is sampled once for every peer, the order of the peers rotating
from one repeat to the next, so drift of a shared machine hits all alike.
"""

from __future__ import annotations

import gc
import platform
import sys
import time
from typing import Any, Iterable, Optional

from . import measure
from .callgrind import count_instructions, unavailable
from .operations import MODES, STEPS, operations
from .payloads import PAYLOADS, ZERO_COPY, describe, same_value, user_payloads
from .peers import PEERS, Unsupported

__all__ = ["REFERENCE", "fastest_peer", "run_suite"]

REFERENCE = "serreg"


def _check(peer: Any, value: Any, ops: dict[Any, Any]) -> dict[Any, Any]:
    """Correctness and size of one peer's round trips, before any timing."""
    facts: dict[str, dict[str, Any]] = {}
    for mode in MODES:
        entry: dict[str, Any] = {}
        serialize_op = ops[mode, "serialize"]
        if isinstance(serialize_op, str):
            entry["reason"] = serialize_op
            facts[mode] = entry
            continue
        made = serialize_op()
        entry["wire_bytes"] = peer.wire_bytes(made) if mode == "in_process" else memoryview(made).nbytes
        round_trip = ops[mode, "round_trip"]
        if isinstance(round_trip, str):
            entry["correct"] = None
            entry["reason"] = round_trip
        else:
            entry["correct"] = same_value(value, round_trip())
        facts[mode] = entry
    return facts


class _Progress:
    """tqdm when it is installed, else a one-line bar on stderr; silent when disabled."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._bar = None
        self._total = max(1, total)
        self._done = 0
        self._label = ""
        self._enabled = enabled
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self._bar = tqdm(total=total, unit="sample", file=sys.stderr, dynamic_ncols=True, leave=False)

    def label(self, text: str) -> None:
        self._label = text
        if self._bar is not None:
            self._bar.set_description(text)
        else:
            self._draw()

    def update(self, steps: int = 1) -> None:
        self._done += steps
        if self._bar is not None:
            self._bar.update(steps)
        else:
            self._draw()

    def _draw(self) -> None:
        if not self._enabled:
            return
        filled = int(30 * self._done / self._total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {100 * self._done // self._total:3d}% {self._label:<40}")
        sys.stderr.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._enabled:
            sys.stderr.write("\r" + " " * 80 + "\r")
            sys.stderr.flush()


def run_suite(
    payloads: Optional[Iterable[str]] = None,
    peers: Optional[Iterable[str]] = None,
    *,
    scale: float = 1.0,
    repeats: int = 7,
    min_time: float = 0.02,
    memory: bool = True,
    progress: bool = True,
    instructions: bool = False,
    callables: Iterable[str] = (),
    frame_files: Iterable[str] = (),
    argv: Optional[list[Any]] = None,
) -> dict[Any, Any]:
    """Measure every payload with every peer; return the report as a JSON-ready dict.

    Times are medians over ``repeats`` samples, in seconds per call. serreg is
    always measured, since every ratio is serreg's time over a peer's.
    ``instructions``: also count CPU instructions per round trip under
    callgrind (:mod:`serreg.bench.callgrind`). ``callables`` (``module:callable``)
    and ``frame_files`` add the user's own values as payloads; when given and
    ``payloads`` is not, only they are measured.
    """
    callables, frame_files = list(callables), list(frame_files)
    builders = dict(PAYLOADS)
    own = user_payloads(callables, frame_files)
    builders.update(own)
    if payloads is not None:
        payload_names = list(payloads) + [name for name in own if name not in payloads]
    else:
        payload_names = list(own) if own else list(PAYLOADS)
    for name in payload_names:
        if name not in builders:
            raise ValueError(f"unknown payload {name!r}; choose from {', '.join(PAYLOADS)}")
    peer_names = list(peers) if peers is not None else list(PEERS)
    for name in peer_names:
        if name not in PEERS:
            raise ValueError(f"unknown peer {name!r}; choose from {', '.join(PEERS)}")
    if REFERENCE not in peer_names:
        peer_names.insert(0, REFERENCE)
    if repeats < 1:
        raise ValueError("repeats must be at least 1")

    instances = {name: PEERS[name]() for name in peer_names}
    usable = [name for name in peer_names if instances[name].available]
    report: dict[str, Any] = {
        "command": argv,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "scale": scale,
        "repeats": repeats,
        "min_time_s": min_time,
        "timing": "median over repeats of seconds per call; peers interleaved, their order rotating per repeat; gc paused while timing",
        "memory": (
            "peak_rss_bytes: rise of the resident high-water mark (VmHWM, reset via /proc/self/clear_refs) during "
            "one round trip; peak_traced_bytes: tracemalloc peak during one round trip (Python heap and numpy, "
            "not Arrow's pool); both untimed runs"
        ) if memory else "not measured",
        "rss_available": measure.rss_available() if memory else False,
        "peers": {
            name: {"available": peer.available, "reason": peer.reason, "how": peer.how,
                   "version": peer.version if peer.available else None}
            for name, peer in instances.items()
        },
        "payloads": {},
    }
    bar = _Progress(len(payload_names) * repeats * len(MODES) * len(STEPS) * len(usable), progress)
    started = time.perf_counter()
    try:
        for payload_name in payload_names:
            bar.label(f"{payload_name}: building")
            value = builders[payload_name](scale)
            report["payloads"][payload_name] = _run_payload(
                payload_name, value, instances, usable, repeats, min_time, memory, bar, report["rss_available"]
            )
            del value
            gc.collect()
        if instructions:
            _add_instructions(report, payload_names, usable, scale, callables, frame_files, bar)
    finally:
        bar.close()
    report["elapsed_s"] = time.perf_counter() - started
    return report


def _add_instructions(report: Any, payload_names: Any, peer_names: Any, scale: Any, callables: Any, frame_files: Any, bar: Any) -> None:
    """Each (payload, peer, mode) gets ``instructions`` (per round trip) or ``instructions_note``."""
    reason = unavailable()
    report["instructions"] = reason or (
        "CPU instructions per round trip under valgrind --tool=callgrind: (count at 3N round trips - count at N) "
        "/ 2N, in one child process after a warm-up (PYTHONHASHSEED=0)"
    )
    if reason is not None:
        return
    counts = count_instructions(
        payload_names, peer_names, scale=scale, callables=callables, frame_files=frame_files, progress=bar
    )
    for payload, entry in report["payloads"].items():
        for name, result in entry["results"].items():
            if not result.get("supported"):
                continue
            for mode in MODES:
                counted = counts.get(payload, {}).get(name, {}).get(mode, "not counted")
                if isinstance(counted, str):
                    result[mode]["instructions_note"] = counted
                else:
                    result[mode]["instructions"] = counted


def _run_payload(payload_name: Any, value: Any, instances: Any, usable: Any, repeats: Any, min_time: Any, memory: Any, bar: Any, rss: Any) -> dict[Any, Any]:
    entry: dict[str, Any] = {"description": describe(value), "zero_copy": payload_name in ZERO_COPY, "results": {}}
    timed = {}  # (peer, mode, step) -> operation
    for name in usable:
        peer = instances[name]
        bar.label(f"{payload_name}: checking {name}")
        try:
            peer.check(value)
            ops = operations(peer, value)
        except Unsupported as error:
            entry["results"][name] = {"supported": False, "reason": str(error)}
            continue
        facts = _check(peer, value, ops)
        result: dict[str, Any] = {"supported": True}
        for mode in MODES:
            result[mode] = dict(facts[mode])
            for step in STEPS:
                operation = ops[mode, step]
                if isinstance(operation, str):
                    result[mode][f"{step}_s"] = None
                    result[mode].setdefault("reason", operation)
                else:
                    timed[name, mode, step] = operation
        entry["results"][name] = result

    numbers = {key: measure.calibrate(operation, min_time) for key, operation in timed.items()}
    samples: dict[Any, list[float]] = {key: [] for key in timed}
    for repeat in range(repeats):
        bar.label(f"{payload_name}: repeat {repeat + 1}/{repeats}")
        order = usable[repeat % len(usable):] + usable[: repeat % len(usable)]
        for mode in MODES:
            for step in STEPS:
                for name in order:
                    key = (name, mode, step)
                    if key in timed:
                        samples[key].append(measure.sample(timed[key], numbers[key]))
                    bar.update()
    for (name, mode, step), values in samples.items():
        target = entry["results"][name][mode]
        target[f"{step}_s"] = measure.median(values)
        target.setdefault("samples_s", {})[step] = values
        target.setdefault("calls_per_sample", {})[step] = numbers[name, mode, step]

    if memory:
        for name in usable:
            for mode in MODES:
                operation = timed.get((name, mode, "round_trip"))
                if operation is None:
                    continue
                bar.label(f"{payload_name}: memory of {name}")
                target = entry["results"][name][mode]
                target["peak_traced_bytes"] = measure.peak_traced(operation)
                target["peak_rss_bytes"] = measure.peak_rss(operation) if rss else None

    entry["ratios"] = _ratios(entry["results"])
    return entry


def _ratios(results: dict[Any, Any]) -> dict[Any, Any]:
    """serreg's time (and bytes) over each peer's: below 1 means serreg is faster (smaller)."""
    reference = results.get(REFERENCE)
    ratios: dict[str, dict[str, float]] = {}
    if not reference or not reference.get("supported"):
        return ratios
    for name, result in results.items():
        if name == REFERENCE or not result.get("supported"):
            continue
        peer_ratios = {}
        for mode in MODES:
            for step in STEPS:
                mine = reference[mode].get(f"{step}_s")
                theirs = result[mode].get(f"{step}_s")
                if mine and theirs:
                    peer_ratios[f"{mode}.{step}"] = mine / theirs
            mine = reference[mode].get("wire_bytes")
            theirs = result[mode].get("wire_bytes")
            if mine is not None and theirs:
                peer_ratios[f"{mode}.wire_bytes"] = mine / theirs
        ratios[name] = peer_ratios
    return ratios


def fastest_peer(results: dict[Any, Any], mode: str) -> Optional[tuple[Any, ...]]:
    """(name, seconds) of the fastest correct peer's round trip in ``mode``, serreg (in any setup) excluded."""
    best = None
    for name, result in results.items():
        if name.startswith(REFERENCE) or not result.get("supported"):
            continue
        facts = result[mode]
        seconds = facts.get("round_trip_s")
        if seconds and facts.get("correct") and (best is None or seconds < best[1]):
            best = (name, seconds)
    return best
