"""Serializing a deeply nested value never crashes, on the main thread or on one with a 256 KiB stack.

Each level of a value nested through serializers (a tuple past the levels the compiled codec writes
in place, a set's members, a user type holding another, an undeclared class's instance, a dataclass)
is a call into Python and back into the codec: a few KiB of C stack that CPython 3.11's recursion
limit does not count. A thread with a 256 KiB stack crashed (SIGSEGV) on 50,000 nested tuples
(compiled codec), 130 levels of a list holding a dict holding a tuple (pure codec) and 200 nested
instances of a plain class (both). Now the compiled encoder measures its stack before each such call
(``serreg/codec/_core_stack.h``) and the pure codec counts its levels against the thread's stack
(``serreg.codec.stack.WriteDepth``): the answer is a frame or a SerializationError naming the path.
Each case runs in a child process (a crash is a failed test), under both backends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent

SCRIPT = textwrap.dedent("""
    import dataclasses, sys, threading
    from typing import Any
    import serreg

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

    WRAP = {
        "list": lambda v: [v], "dict": lambda v: {"k": v}, "tuple": lambda v: (v,),
        "set": lambda v: frozenset([(v,)]), "list dict tuple": lambda v: [{"a": (v,)}],
        "plain instance": Plain, "dataclass": Record, "user serializer": Box,
    }

    def deep(kind, levels):
        value = 0
        for _ in range(levels):
            value = WRAP[kind](value)
        return value

    results = []

    def work():
        for kind in WRAP:
            for levels in (40, 300, 100_000):
                value = deep(kind, levels)
                for call in ("serialize", "canonical", "cross_language"):
                    try:
                        if call == "serialize":
                            registry.deserialize(registry.serialize(value).to_bytes(), limits=serreg.Limits(max_depth=None))
                        elif call == "canonical":
                            registry.serialize(value, canonical=True).to_bytes()
                        else:
                            registry.serialize(value, cross_language=True).to_bytes()
                        outcome = "value"
                    except serreg.SerregError as error:
                        outcome = type(error).__name__
                    except RecursionError:
                        outcome = "RecursionError"  # not an answer either
                    results.append((kind, levels, call, outcome))

    if sys.argv[1] == "thread":
        threading.stack_size(256 * 1024)
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    else:
        work()
    print(results)
""")


@pytest.mark.parametrize("where", ["thread", "main"])
@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_deeply_nested_values_are_written_or_refused_without_a_crash(where: str, pure: bool) -> None:
    env = dict(os.environ)
    env.pop("SERREG_PURE_PYTHON", None)
    if pure:
        env["SERREG_PURE_PYTHON"] = "1"
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT, where], capture_output=True,
                          text=True, timeout=900, cwd=str(HERE), env=env)
    assert done.returncode == 0, (where, pure, done.returncode, done.stderr[-3000:])
    results = eval(done.stdout.strip())  # [(kind, levels, call, outcome), ...] printed by the script
    assert len(results) == 8 * 3 * 3, results
    assert "RecursionError" not in {outcome for *_, outcome in results}, results
    outcomes = {(kind, levels, call): outcome for kind, levels, call, outcome in results}
    # 100,000 levels are refused everywhere; 40 levels of plain containers and nested values are written.
    assert all(outcome != "value" for (_, levels, _), outcome in outcomes.items() if levels == 100_000), outcomes
    for kind in ("list", "dict", "tuple", "set", "list dict tuple"):
        assert outcomes[(kind, 40, "serialize")] == "value", (kind, outcomes)
