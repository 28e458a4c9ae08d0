"""The amplification oracle: an input of S bytes may cost only so much memory and time.

Issue 11, section 1: for every input of S bytes, each entry point (deserialize,
digest, canonical serialize, ``Store.put``/``get``, ``serreg inspect``) uses at
most ``factor x S + allowance`` bytes of memory (16 and 32 MiB unless told
otherwise) and time linear in S (``base + per_mib x S / MiB`` seconds).
:func:`measure` runs one call and reports what it cost; :class:`Oracle` raises
:class:`Amplification` when a call costs more, which the fuzz targets treat as a
finding like any crash.

Memory is the growth of the resident set, which sees Arrow's C++ allocations
as well as Python's: before the call, freed memory is handed back (the
youngest garbage generation, glibc's ``malloc_trim``, Arrow's pool) and the kernel's
high-water mark is reset (``/proc/self/clear_refs``, value 5); the peak is the
high-water mark after the call minus the resident set before it. A measurement
costs about 0.1 ms. Where that
is not available (not Linux), tracemalloc's peak is used, which sees Python
and numpy allocations only. Time: a call over the bound is run twice more and
the fastest of the three counts, so a machine that paused is not a finding.

Environment: ``SERREG_FUZZ_MEMORY=factor,allowance_mib`` and
``SERREG_FUZZ_TIME=base_seconds,seconds_per_mib`` change the bounds.
"""

from __future__ import annotations

import ctypes
import gc
import os
import time
import tracemalloc
from dataclasses import dataclass
from typing import Callable

import pyarrow

MIB = 1 << 20
_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"


def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


_LIBC = _libc()


def _status_kib(field: str) -> int:
    with open(_STATUS, "rb") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])
    raise OSError(f"{field!r} not in {_STATUS}")


def _can_reset_peak() -> bool:
    try:
        with open(_CLEAR_REFS, "w") as clear:
            clear.write("5")
        _status_kib(b"VmHWM:")
        return True
    except OSError:
        return False


RSS_PEAK = _can_reset_peak()


@dataclass
class Cost:
    peak_bytes: int  # memory growth at the peak of the call
    seconds: float
    outcome: object  # what the call returned, or the exception it raised
    method: str  # "rss" or "tracemalloc"


_FULL_COLLECTION_EVERY = 256
_calls = 0


def _release() -> None:
    # A full collection costs ~10 ms with numpy and pyarrow loaded: the youngest generation
    # every time, all of them now and then (failed decodes leave cycles through their
    # exceptions' tracebacks, which would otherwise pile up in the oldest generation).
    global _calls
    _calls += 1
    gc.collect(0 if _calls % _FULL_COLLECTION_EVERY else 2)
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
    pyarrow.default_memory_pool().release_unused()


def measure(call: Callable[[], object]) -> Cost:
    """Run ``call()`` once; return its peak memory growth, time and outcome (exceptions are caught)."""
    _release()
    if RSS_PEAK:
        with open(_CLEAR_REFS, "w") as clear:
            clear.write("5")
        before = _status_kib(b"VmRSS:")
    else:
        tracemalloc.start()
    started = time.perf_counter()
    outcome = _outcome(call)
    seconds = time.perf_counter() - started
    if RSS_PEAK:
        peak = (_status_kib(b"VmHWM:") - before) * 1024
        method = "rss"
    else:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        method = "tracemalloc"
    return Cost(max(peak, 0), seconds, outcome, method)


def _outcome(call: Callable[[], object]):
    """What ``call()`` returns, or the exception it raises. (Kept apart so that no frame
    holding the exception is in its own traceback: that cycle would keep every value the
    call made alive until a full garbage collection.)"""
    try:
        return call()
    except Exception as error:  # the caller judges the outcome; here only the cost counts
        return error


class Amplification(Exception):
    """An input cost more memory or time than its size allows."""


def _pair(name: str, default: tuple) -> tuple:
    text = os.environ.get(name)
    if not text:
        return default
    first, second = text.split(",")
    return float(first), float(second)


class Oracle:
    """The bounds of issue 11, section 1 (or those of the environment) and the check against them."""

    def __init__(self, factor: float = 16, allowance_mib: float = 32, base_seconds: float = 0.5,
                 seconds_per_mib: float = 2.0) -> None:
        self.factor, self.allowance_mib = _pair("SERREG_FUZZ_MEMORY", (factor, allowance_mib))
        self.base_seconds, self.seconds_per_mib = _pair("SERREG_FUZZ_TIME", (base_seconds, seconds_per_mib))

    def memory_bound(self, size: int) -> int:
        return int(self.factor * size + self.allowance_mib * MIB)

    def time_bound(self, size: int) -> float:
        return self.base_seconds + self.seconds_per_mib * size / MIB

    def check(self, size: int, call: Callable[[], object], what: str) -> object:
        """Run ``call``; raise Amplification if it costs more than an input of ``size`` bytes may.
        Returns the call's outcome (a value or the exception it raised)."""
        cost = measure(call)
        if cost.seconds > self.time_bound(size):
            cost.seconds = min([cost.seconds] + [measure(call).seconds for _ in range(2)])
        if cost.peak_bytes > self.memory_bound(size):
            raise Amplification(
                f"{what}: an input of {size:,} bytes took {cost.peak_bytes / MIB:.1f} MiB ({cost.method}), more "
                f"than {self.factor:g} x size + {self.allowance_mib:g} MiB = {self.memory_bound(size) / MIB:.1f} MiB"
            )
        if cost.seconds > self.time_bound(size):
            raise Amplification(
                f"{what}: an input of {size:,} bytes took {cost.seconds:.2f} s, more than "
                f"{self.base_seconds:g} s + {self.seconds_per_mib:g} s/MiB = {self.time_bound(size):.2f} s"
            )
        return cost.outcome
