"""CPU instructions per round trip, counted by valgrind's callgrind.

Wall times on a shared machine move by tens of percent from run to run;
instruction counts do not. For every (payload, peer, mode) the suite's own
round-trip operation runs in one child process under callgrind: once to warm
up, then N times, then 3N times, the counters dumped after each part (a
client request made through a few lines of C compiled on the spot, called
with ctypes). Instructions per round trip = (count at 3N - count at N) / 2N:
start-up, imports and each part's fixed cost cancel out.

Needs valgrind and a C compiler with valgrind's headers (system packages);
:func:`unavailable` says what is missing. The child is this module run as a
program (``python -m serreg.bench.callgrind SPEC``).
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from .operations import MODES, operations
from .payloads import PAYLOADS, user_payloads
from .peers import PEERS, Unsupported

__all__ = ["count_instructions", "unavailable"]

_HELPER_C = """#include <valgrind/callgrind.h>
void serreg_bench_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""
_HEADER = "valgrind/callgrind.h"
# Valgrind runs Python some 50x slower: each measured part lasts about this long under it.
_PART_S = 0.25
_MAX_N = 200
_SUMMARY = re.compile(rb"^summary: (\d+)", re.M)
_TRIGGER = re.compile(rb"^desc: Trigger: Client Request: (.*)$", re.M)


def _compiler() -> str:
    return (sysconfig.get_config_var("CC") or "cc").split()[0]


def unavailable() -> Optional[str]:
    """Why instructions cannot be counted here, or None."""
    if shutil.which("valgrind") is None:
        return "valgrind is not installed (apt-get install valgrind)"
    if shutil.which(_compiler()) is None:
        return f"no C compiler ({_compiler()}) to build the callgrind client request"
    include = Path(sysconfig.get_config_var("INCLUDEDIR") or "/usr/include")
    if not any((base / _HEADER).exists() for base in (include, Path("/usr/include"), Path("/usr/local/include"))):
        return f"{_HEADER} not found (it comes with valgrind's development files)"
    return None


def _build_helper(directory: Path) -> Path:
    source = directory / "serreg_bench_dump.c"
    source.write_text(_HELPER_C)
    library = directory / "serreg_bench_dump.so"
    subprocess.run([_compiler(), "-O1", "-shared", "-fPIC", "-o", str(library), str(source)], check=True,
                   capture_output=True)
    return library


def count_instructions(
    payloads: list[Any], peers: list[Any], *, scale: float, callables: Any = (), frame_files: Any = (), progress: Any = None
) -> dict[Any, Any]:
    """{payload: {peer: {mode: instructions per round trip, or the reason there is none}}}.

    Runs one child under callgrind for everything; raises RuntimeError if it fails.
    """
    with tempfile.TemporaryDirectory(prefix="serreg-callgrind-") as temp:
        directory = Path(temp)
        spec = {
            "helper": str(_build_helper(directory)), "scale": scale, "payloads": payloads, "peers": peers,
            "callables": list(callables), "frame_files": list(frame_files), "notes": str(directory / "notes.json"),
        }
        (directory / "spec.json").write_text(json.dumps(spec))
        command = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={directory / 'cg.out'}", "--dump-instr=no",
            "--dump-line=no", sys.executable, "-m", "serreg.bench.callgrind", str(directory / "spec.json"),
        ]
        # Same hashes every run; Arrow's allocator from the C library, which valgrind tracks.
        # One BLAS/OpenMP thread: idle worker threads spinning would be counted with every peer's calls.
        env = dict(os.environ, PYTHONHASHSEED="0", ARROW_DEFAULT_MEMORY_POOL="system",
                   OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
        if progress is not None:
            progress.label("instructions under callgrind")
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"the callgrind run failed ({run.returncode}): {run.stderr[-2000:]}")
        notes = json.loads((directory / "notes.json").read_text())
        counts = {}
        for dump in directory.glob("cg.out.*"):
            data = dump.read_bytes()
            trigger, summary = _TRIGGER.search(data), _SUMMARY.search(data)
            if trigger and summary:
                counts[trigger.group(1).decode()] = int(summary.group(1))
    return _per_round_trip(notes, counts)


def _per_round_trip(notes: dict[Any, Any], counts: dict[Any, Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key, note in notes.items():
        payload, peer, mode = key.split("|")
        target = out.setdefault(payload, {}).setdefault(peer, {})
        if isinstance(note, str):
            target[mode] = note
            continue
        once, thrice = counts.get(f"{key}|N"), counts.get(f"{key}|3N")
        target[mode] = "no callgrind dump" if once is None or thrice is None else (thrice - once) / (2 * note)
    return out


def _child(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    dump = ctypes.CDLL(spec["helper"]).serreg_bench_dump
    dump.argtypes = [ctypes.c_char_p]
    builders = dict(PAYLOADS)
    builders.update(user_payloads(spec["callables"], spec["frame_files"]))
    instances = {name: PEERS[name]() for name in spec["peers"]}
    notes: dict[Any, Any] = {}
    for payload in spec["payloads"]:
        value = builders[payload](spec["scale"])
        for name, peer in instances.items():
            if not peer.available:
                continue
            try:
                peer.check(value)
                ops = operations(peer, value)
            except Unsupported as error:
                for mode in MODES:
                    notes[f"{payload}|{name}|{mode}"] = str(error)
                continue
            for mode in MODES:
                key = f"{payload}|{name}|{mode}"
                operation = ops[mode, "round_trip"]
                if isinstance(operation, str):
                    notes[key] = operation
                    continue
                notes[key] = _count(operation, key, dump)
        del value
        gc.collect()
    Path(spec["notes"]).write_text(json.dumps(notes))


def _count(operation: Any, key: str, dump: Any) -> int:
    """Warm up, pick N, run N then 3N round trips with a dump after each; return N."""
    gc.collect()
    operation()  # the first call may import, build caches, fault pages in
    start = time.perf_counter()
    operation()
    elapsed = max(time.perf_counter() - start, 1e-6)
    n = max(1, min(_MAX_N, int(_PART_S / elapsed)))
    gc.disable()
    try:
        dump(f"{key}|warm".encode())
        for _ in range(n):
            operation()
        dump(f"{key}|N".encode())
        for _ in range(3 * n):
            operation()
        dump(f"{key}|3N".encode())
    finally:
        gc.enable()
    return n


if __name__ == "__main__":
    _child(sys.argv[1])
