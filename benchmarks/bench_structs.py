"""1,000 three-field structs (Points) round-tripped by serreg, msgspec and pyfory: wall and instructions.

Variants (``--variant``): ``structs_1k`` (the default: serreg with a dataclass Point against msgspec
and pyfory) and ``structs_1k_msgspec`` (serreg with a msgspec.Struct Point declared as a struct,
against serreg's dataclass Point and msgspec itself, all in the same run). In ``structs_1k``
msgspec runs twice: with its own ``msgspec.Struct`` and with a plain dataclass (the kind of
object serreg and pyfory build, which costs CPython more to create, fill and free).

Wall: the three libraries interleaved, ``--repeats`` rounds of ``--number`` round trips each,
medians per round trip (encode+decode, encode alone, decode alone). Instructions: each library
under ``valgrind --tool=callgrind`` twice (0 and ``--calls`` round trips), the difference divided
by ``--calls`` (interpreter start-up cancels out). Frame sizes are printed too.

    python benchmarks/bench_structs.py [--variant structs_1k_msgspec] [--repeats 15] [--number 20] [--calls 20]
        [--no-callgrind]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import subprocess
import sys
import tempfile
import time

N = 1000


def make(name: str):
    """(encode, decode, payload) of one library for the 1,000 points."""
    if name == "serreg":
        import serreg

        @dataclasses.dataclass
        class Point:
            x: int
            y: int
            z: int

        registry = serreg.Registry()
        registry.register_struct(Point, "bench.Point")
        payload = [Point(i, i * 2, i * 3) for i in range(N)]
        return (lambda v: registry.serialize(v).to_bytes()), registry.deserialize, payload
    if name == "serreg-msgspec":
        import msgspec
        import serreg

        class SPoint(msgspec.Struct):
            x: int
            y: int
            z: int

        registry = serreg.Registry()
        registry.register_struct(SPoint, "bench.Point")
        payload = [SPoint(i, i * 2, i * 3) for i in range(N)]
        return (lambda v: registry.serialize(v).to_bytes()), registry.deserialize, payload
    if name == "msgspec":
        import msgspec

        class MPoint(msgspec.Struct):
            x: int
            y: int
            z: int

        encoder, decoder = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(list[MPoint])
        return encoder.encode, decoder.decode, [MPoint(i, i * 2, i * 3) for i in range(N)]
    if name == "msgspec-dataclass":  # the same kind of object as serreg's and pyfory's points
        import msgspec

        @dataclasses.dataclass
        class DPoint:
            x: int
            y: int
            z: int

        encoder, decoder = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(list[DPoint])
        return encoder.encode, decoder.decode, [DPoint(i, i * 2, i * 3) for i in range(N)]
    if name in ("pyfory", "pyfory-xlang"):
        import pyfory

        @dataclasses.dataclass
        class FPoint:
            x: int
            y: int
            z: int

        fory = pyfory.Fory(xlang=name == "pyfory-xlang", ref=False)
        fory.register_type(FPoint, name="bench.Point")
        return fory.serialize, fory.deserialize, [FPoint(i, i * 2, i * 3) for i in range(N)]
    raise ValueError(name)


VARIANTS = {  # the first library of a variant is the one the others are compared with
    "structs_1k": ("serreg", "msgspec", "msgspec-dataclass", "pyfory", "pyfory-xlang"),
    "structs_1k_msgspec": ("serreg-msgspec", "serreg", "msgspec"),
}


def wall(libraries: tuple[str, ...], repeats: int, number: int) -> None:
    made = {name: make(name) for name in libraries}
    times = {name: {"round trip": [], "encode": [], "decode": []} for name in libraries}
    for _ in range(repeats):
        for name, (encode, decode, payload) in made.items():
            frame = encode(payload)
            start = time.perf_counter()
            for _ in range(number):
                encode(payload)
            middle = time.perf_counter()
            for _ in range(number):
                decode(frame)
            end = time.perf_counter()
            times[name]["encode"].append((middle - start) / number)
            times[name]["decode"].append((end - middle) / number)
            times[name]["round trip"].append((end - start) / number)
    base = {k: statistics.median(v) for k, v in times[libraries[0]].items()}
    print(f"wall, medians of {repeats} x {number} (us per call; {libraries[0]} / peer in brackets)")
    for name, (encode, decode, payload) in made.items():
        frame = encode(payload)
        row = ", ".join(
            f"{k} {statistics.median(v) * 1e6:,.0f} ({base[k] / statistics.median(v):.2f}x)" for k, v in times[name].items()
        )
        print(f"  {name:17} {row}; frame {len(frame):,} B")


def _instructions(name: str, calls: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", sys.executable, __file__,
             "--run-one", name, "--calls", str(calls)],
            capture_output=True, text=True, check=True,
        )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    return int(found.group(1))


def callgrind(libraries: tuple[str, ...], calls: int) -> None:
    print(f"instructions per round trip (callgrind, ({calls} calls - 0 calls) / {calls})")
    counts = {name: (_instructions(name, calls) - _instructions(name, 0)) / calls for name in libraries}
    base = libraries[0]
    for name, count in counts.items():
        print(f"  {name:17} {count:,.0f}  ({base} / peer {counts[base] / count:.2f}x)")


def run_one(name: str, calls: int) -> None:
    encode, decode, payload = make(name)
    decode(encode(payload))  # warm: registration, compiled readers
    for _ in range(calls):
        decode(encode(payload))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="structs_1k")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--number", type=int, default=20)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--run-one")
    args = parser.parse_args()
    if args.run_one:
        run_one(args.run_one, args.calls)
    else:
        wall(VARIANTS[args.variant], args.repeats, args.number)
        if not args.no_callgrind:
            callgrind(VARIANTS[args.variant], args.calls)
