"""The copy out of a frame of large bytes, in the heap states a program can be in.

A round trip of 10 MB bytes (serialize, to_bytes, deserialize) in one process, optionally followed by one read
of the new value (compared with the original), timed in CPU time with the streaming copy on (the machine's
threshold) and off (threshold 0: PyBytes_FromStringAndSize's memcpy), alternately. Two heap states:

  warm:  the C library told to keep blocks of this size on its heap (as it ends up in a process that moved
         larger blocks before, e.g. the benchmark suite's): no page faults per call;
  alone: the C library left as a fresh process has it: it hands the freed blocks back each round trip and
         every call faults on fresh pages.

    python benchmarks/bench_bytes_copy_out.py warm|alone [ROUNDS]
"""

import ctypes
import resource
import statistics
import sys
import time

import serreg
from serreg.codec import _core

VALUE = bytes(range(256)) * (10_000_000 // 256)


def _round_trip() -> bytes:
    back = serreg.deserialize(serreg.serialize(VALUE).to_bytes())
    assert isinstance(back, bytes)
    return back


def _median_us(threshold: int, read: bool, calls: int = 60) -> tuple[float, int]:
    _core.stream_copy_threshold(threshold)
    times = []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        start = time.process_time_ns()
        back = _round_trip()
        if read:
            assert back == VALUE
        times.append(time.process_time_ns() - start)
        del back
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return statistics.median(times[10:]) / 1000, faults // calls


def main() -> None:
    state = sys.argv[1] if len(sys.argv) > 1 else "warm"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if state == "warm":
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-1, 64 << 20)  # M_TRIM_THRESHOLD
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
    elif state != "alone":
        raise SystemExit("usage: bench_bytes_copy_out.py warm|alone [ROUNDS]")
    if _core.stream_copy_threshold(-1) == 0:
        raise SystemExit("no streaming copy on this machine (needs x86-64 with AVX2)")
    for _ in range(rounds):
        for read in (False, True):
            plain, plain_faults = _median_us(0, read)
            streamed, streamed_faults = _median_us(-1, read)
            print(f"{state} read={read}: memcpy {plain:.0f} us ({plain_faults} faults/call), "
                  f"streaming {streamed:.0f} us ({streamed_faults} faults/call), ratio {streamed / plain:.2f}")
    _core.stream_copy_threshold(-1)


if __name__ == "__main__":
    main()
