"""One peer's round trip of one standard payload, N times as ``serreg bench`` samples it (gc paused),
for an outside tool to measure: run it twice under ``valgrind --tool=cachegrind --cache-sim=yes
--branch-sim=yes`` with N and 3N and divide the difference of the totals by 2N (start-up cancels out).
Without a tool it prints wall and thread CPU time per call.

    python benchmarks/bench_one_roundtrip.py dataclass serreg bytes 5000
"""

from __future__ import annotations

import gc
import sys
import time

from serreg.bench.operations import operations
from serreg.bench.payloads import PAYLOADS
from serreg.bench.peers import PEERS

WAYS = {"result": "in_process", "bytes": "frame"}


def main() -> None:
    payload, peer_name, way, number = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    value = PAYLOADS[payload](1.0)
    peer = PEERS[peer_name]()
    peer.check(value)
    operation = operations(peer, value)[WAYS[way], "round_trip"]
    for _ in range(200):
        operation()
    gc.disable()
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in range(number):
        operation()
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    print(f"{payload} {peer_name} {way}: wall {wall / number * 1e6:.2f} us, thread CPU {cpu / number * 1e6:.2f} us per call")


if __name__ == "__main__":
    main()
