"""How much C stack one nested level costs the pure codec, writing and reading: the numbers behind
serreg/codec/stack.py's WRITE_PER_LEVEL and READ_PER_LEVEL (docs/BOUNDS.md).

For each value kind and thread stack size, a binary search finds the deepest value a child process
writes (or reads) without crashing, with the pure codec's own depth guards switched off (their
per-level figures set to 1 byte, Python's recursion limit raised): the stack size divided by that
depth is the cost of a level, and the difference between two stack sizes over the difference of
their depths is the cost without what the thread used before the first level. Run from the
repository's root:

    SERREG_PURE_PYTHON=1 nice -n 10 python benchmarks/stack_per_level.py [--only KIND ...]
    SERREG_PURE_PYTHON=1 nice -n 10 python benchmarks/stack_per_level.py --check   # guards on: never a crash

``--compiled`` runs the compiled codec instead, whose writer calls the pure codec's Packer for some
values (the instances of classes written as implicit structs, 10.9): the same guards count those.

"list" and "dict" are plain containers msgpack's Packer writes by its own recursion (no nested
value): their levels are the Packer's, up to its own limit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SIZES = (256 * 1024, 512 * 1024, 1024 * 1024)
WRITE_KINDS = ("tuple", "set", "list dict tuple", "plain instance", "dataclass", "user serializer", "list", "dict")
READ_KINDS = ("tuple", "list", "set")
CEILING = 40_000  # levels: deeper than any stack here holds

CHILD = textwrap.dedent("""
    import dataclasses, sys, threading
    from typing import Any
    import serreg
    import serreg.codec.stack as stack
    from serreg.wire.class_id import class_id_hash

    mode, kind, size, levels, guards = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    if guards == "off":  # how deep does it go before it crashes?
        stack.WRITE_PER_LEVEL = stack.PLAIN_PER_LEVEL = stack.READ_PER_LEVEL = 1
        stack.WRITE_RESERVE = stack.READ_RESERVE = 0
    if guards == "off" or kind not in ("plain instance", "dataclass"):
        # The guards, not Python's recursion limit, must stop what would crash; but deep instances of
        # plain classes and dataclasses are pickled whole, and pickle's recursion in C is bounded by
        # that limit only (raised, 600 levels crash a 256 KiB thread, with or without these guards).
        sys.setrecursionlimit(10_000_000)

    class Plain:
        def __init__(self, inner):
            self.inner = inner

    @dataclasses.dataclass
    class Record:
        inner: Any

    class Box:
        def __init__(self, inner):
            self.inner = inner

    registry = serreg.Registry()
    registry.register_serializer("test.Box", Box, serialize=lambda box: registry.serialize(box.inner),
                                 deserialize=lambda in_band, oob: Box(registry.deserialize(in_band, oob)))
    WRAP = {"tuple": lambda v: (v,), "set": lambda v: frozenset([(v,)]), "list dict tuple": lambda v: [{"a": (v,)}],
            "plain instance": Plain, "dataclass": Record, "user serializer": Box, "list": lambda v: [v],
            "dict": lambda v: {"k": v}}

    def nested_frame(class_id, levels):
        # levels nested values of class_id (ext 0 in a one-item array), None innermost: no serializer runs to build it.
        inner = class_id_hash("None") + b"\\xc0"
        for _ in range(levels):
            inner = class_id_hash(class_id) + b"\\x91\\xc9" + len(inner).to_bytes(4, "big") + b"\\x00" + inner
        return serreg.SerializationResult(inner).to_bytes()

    if mode == "write":
        value = 0
        for _ in range(levels):
            value = WRAP[kind](value)
        work = lambda: registry.serialize(value)
    else:
        frame = nested_frame({"set": "frozenset"}.get(kind, kind), levels)
        work = lambda: registry.deserialize(frame, limits=serreg.Limits(max_depth=None))

    outcome = []
    def run():
        try:
            work()
            outcome.append("value")
        except (serreg.SerregError, RecursionError) as error:
            outcome.append(type(error).__name__)

    threading.stack_size(size)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    print(outcome[0])
""")


def survives(mode: str, kind: str, size: int, levels: int, guards: str = "off") -> bool:
    """Whether a thread of ``size`` bytes of stack writes (reads) a value ``levels`` deep without crashing."""
    env = {**os.environ, "SERREG_PURE_PYTHON": "" if "--compiled" in sys.argv else "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, mode, kind, str(size), str(levels), guards], env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode < 0:
        return False  # killed by a signal: the stack overflowed
    if done.returncode != 0:
        raise RuntimeError(f"{mode} {kind} {size} {levels}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return True  # a value, or a refusal (msgpack's Packer stops plain containers at its own limit): no crash


def deepest(mode: str, kind: str, size: int) -> int:
    """The most levels that do not crash (binary search); CEILING when none crashes."""
    low, high = 1, CEILING  # low survives (checked below), high crashes (assumed, then checked)
    if not survives(mode, kind, size, low):
        return 0
    if survives(mode, kind, size, high):
        return high
    while high - low > max(1, low // 100):  # to 1%
        middle = (low + high) // 2
        if survives(mode, kind, size, middle):
            low = middle
        else:
            high = middle
    return low


def check() -> None:
    """With the guards on (and Python's recursion limit out of the way): a value or a refusal, never a crash."""
    for mode, kinds in (("write", WRITE_KINDS), ("read", READ_KINDS)):
        for kind in kinds:
            for size in SIZES:
                for levels in (50, 100, 200, 600, 1100, 5000, CEILING):
                    assert survives(mode, kind, size, levels, "on"), (mode, kind, size, levels)
            print(f"{mode} {kind}: no crash on {', '.join(f'{s // 1024} KiB' for s in SIZES)} threads", flush=True)


def main() -> None:
    if "--check" in sys.argv:
        check()
        return
    only = {a for a in sys.argv[sys.argv.index("--only") + 1:] if not a.startswith("--")} if "--only" in sys.argv else None
    print("| path | value kind | " + " | ".join(f"{s // 1024} KiB: levels (bytes/level)" for s in SIZES)
          + " | bytes/level, 512 KiB to 1 MiB |")
    print("|---|---|" + "---|" * (len(SIZES) + 1))
    for mode, kinds in (("write", WRITE_KINDS), ("read", READ_KINDS)):
        for kind in kinds:
            if only is not None and kind not in only:
                continue
            depths = [deepest(mode, kind, size) for size in SIZES]
            cells = [f"{d} ({s // max(d, 1)})" for d, s in zip(depths, SIZES)]
            slope = (SIZES[2] - SIZES[1]) // max(depths[2] - depths[1], 1)
            print(f"| {mode} | {kind} | " + " | ".join(cells) + f" | {slope} |", flush=True)


if __name__ == "__main__":
    main()
