"""Timing and peak memory of one operation.

Time: an operation is calibrated once to run ``min_time`` per sample (at
least one call), then each sample times that many calls back to back with
the garbage collector paused (as ``timeit`` does); the suite keeps the
median of the samples.

Peak memory, measured in separate untimed runs:

- ``rss``: the rise of the process's resident-set high-water mark (Linux
  ``VmHWM``, reset through ``/proc/self/clear_refs``) above the resident size
  before the call. It sees every allocator (numpy, Arrow's pool, pickle) but
  counts in pages and only memory that was touched.
- ``traced``: the peak of ``tracemalloc`` during the call: Python-heap and
  numpy allocations only, byte exact, but blind to Arrow's memory pool.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
import tracemalloc
from typing import Any, Callable, Optional

__all__ = ["calibrate", "median", "median_of_runs", "peak_rss", "peak_traced", "rss_available", "sample"]

_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"


def calibrate(operation: Callable[[], object], min_time: float, max_number: int = 100_000) -> int:
    """How many calls make one sample of at least ``min_time`` seconds.

    The first call only warms up (imports, caches, a class's first-time set-up) and is never what
    decides: a slow first call would otherwise make every sample of that operation a single call,
    timed cold after the other peers' samples, which is no peer's steady state. The garbage collector is
    paused for the timed call, as for samples.
    """
    operation()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as in sample: a collection of the whole heap must not fall into the timed call
    try:
        start = time.perf_counter()
        operation()
        elapsed = max(time.perf_counter() - start, 1e-7)
    finally:
        if gc_was_enabled:
            gc.enable()
    return max(1, min(max_number, math.ceil(min_time / elapsed)))


def sample(operation: Callable[[], object], number: int) -> float:
    """Seconds per call over ``number`` back-to-back calls, garbage collector paused."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            operation()
        return (time.perf_counter() - start) / number
    finally:
        if gc_was_enabled:
            gc.enable()


def _status_kib(field: str) -> Optional[int]:
    try:
        with open(_STATUS) as status:
            for line in status:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_available() -> bool:
    """True where the resident high-water mark can be read and reset (Linux)."""
    try:
        with open(_CLEAR_REFS, "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return _status_kib("VmHWM:") is not None


def peak_rss(operation: Callable[[], object]) -> Optional[int]:
    """Bytes the resident high-water mark rose above the resident size during one call."""
    gc.collect()
    try:
        with open(_CLEAR_REFS, "w") as clear:
            clear.write("5")  # resets VmHWM to the current VmRSS
    except OSError:
        return None
    before = _status_kib("VmRSS:")
    result = operation()
    peak = _status_kib("VmHWM:")
    del result
    if before is None or peak is None:
        return None
    return max(0, peak - before) * 1024


def peak_traced(operation: Callable[[], object]) -> int:
    """Peak bytes allocated through tracemalloc during one call (the result is kept until the end)."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = operation()
        peak = tracemalloc.get_traced_memory()[1]
        del result
        return peak
    finally:
        tracemalloc.stop()


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def median_of_runs(operation: Callable[[], object], runs: int) -> float:
    """Median seconds of ``runs`` single calls after one warm-up call (JIT, page faults),
    for operations too slow to repeat many times per sample."""
    operation()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        operation()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
