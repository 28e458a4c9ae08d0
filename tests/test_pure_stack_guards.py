"""The pure codec's C stack guards (serreg/codec/stack.py) hold on a 256 KiB thread, whatever Python's recursion limit.

The pure codec writes plain lists and dicts with msgpack's Packer, which walks them by recursion in
C (444 bytes a level, measured by benchmarks/stack_per_level.py), a nested value costs about 670
bytes more, and reading one about 1.2-1.4 KiB: 600 lists in one another crashed a 256 KiB thread
(the levels of a Packer's walk were not counted), and reading 5,000 nested values under
``Limits(max_depth=None)`` crashed one once Python's recursion limit was raised (that limit was
all that stopped it, near 180 levels, where the stack ran out at 182). Now the writer counts a
pack's plain levels on such a thread and the reader its nested values, against the thread's stack,
at the measured costs plus a margin: a SerializationError or a LimitExceededError, never a crash;
and the margins leave room for what fits (the earlier estimate of 2 KiB a nested level, plain
levels not counted, refused 100 tuples on 256 KiB, where the stack holds 232). Each case runs in a
child process (a crash is a failed test), with Python's recursion limit out of the way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys, threading
    import serreg
    from serreg.wire.class_id import class_id_hash

    sys.setrecursionlimit(1_000_000)
    WRAP = {"list": lambda v: [v], "dict": lambda v: {"k": v}, "tuple": lambda v: (v,),
            "list dict tuple": lambda v: [{"a": (v,)}], "frozenset": lambda v: frozenset([(v,)])}

    def nested_frame(class_id, levels):
        inner = class_id_hash("None") + b"\\xc0"
        for _ in range(levels):
            inner = class_id_hash(class_id) + b"\\x91\\xc9" + len(inner).to_bytes(4, "big") + b"\\x00" + inner
        return serreg.SerializationResult(inner).to_bytes()

    def outcome(call):
        try:
            call()
            return "value"
        except serreg.SerregError as error:
            return type(error).__name__

    results = {}

    def work():
        for kind, wrap in WRAP.items():
            for levels in (40, 120, 300, 600, 1024, 5000):
                value = 0
                for _ in range(levels):
                    value = wrap(value)
                results[("write", kind, levels)] = outcome(lambda: serreg.serialize(value).to_bytes())
        for class_id in ("tuple", "list"):
            for levels in (99, 120, 5000, 50_000):
                frame = nested_frame(class_id, levels)
                results[("read", class_id, levels)] = outcome(
                    lambda: serreg.deserialize(frame, limits=serreg.Limits(max_depth=None)))

    threading.stack_size(256 * 1024)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    print(results)
""")


def run(pure: bool) -> dict[tuple[str, str, int], str]:
    env = dict(os.environ)
    env.pop("SERREG_PURE_PYTHON", None)
    if pure:
        env["SERREG_PURE_PYTHON"] = "1"
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT], capture_output=True, text=True,
                          timeout=900, env=env)
    assert done.returncode == 0, (pure, done.returncode, done.stderr[-3000:])
    return eval(done.stdout.strip())  # {(path, kind, levels): outcome} printed by the script


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_deep_values_on_a_256_kib_thread_are_values_or_refusals_not_crashes(pure):
    results = run(pure)
    assert len(results) == 5 * 6 + 2 * 4
    assert set(results.values()) <= {"value", "SerializationError", "LimitExceededError"}, results
    for kind in ("list", "dict", "tuple", "list dict tuple", "frozenset"):
        assert results[("write", kind, 40)] == "value", (kind, results)
        if pure:  # (the compiled codec writes tuples, and lists of dicts of tuples, in place: 5,000 too)
            assert results[("write", kind, 5000)] == "SerializationError", (kind, results)
    for class_id in ("tuple", "list"):
        assert results[("read", class_id, 99)] == "value", results  # the default max_depth=100 lets 99 through
    if pure:
        # What the thread's stack holds at the measured costs and their margins: 139 tuples in one another
        # writing (1,536 bytes each, of 256 KiB less a 48 KiB reserve), 333 lists or dicts (640 bytes each);
        # values 102 deep reading (1,920 bytes each, of 256 KiB less 64 KiB).
        assert results[("write", "tuple", 120)] == "value", results
        assert results[("write", "list", 300)] == "value" and results[("write", "dict", 300)] == "value", results
        for kind in ("list", "dict"):
            assert results[("write", kind, 600)] == "SerializationError", results  # crashed before
        for class_id in ("tuple", "list"):
            assert results[("read", class_id, 120)] == "LimitExceededError", results
            assert results[("read", class_id, 5000)] == "LimitExceededError", results  # crashed before
