"""Mutated frames read by the compiled and the pure-Python reader: how often their answers differ.

The differential tests (tests/test_compiled_codec.py, tests/test_compiled_structs_hostile.py) stop at the
first frame the two readers answer differently, after a few hundred examples. This runs the same
Hypothesis mutations of the same frames for as many examples as asked, trusted and untrusted, and
counts instead of stopping: examples, values, errors, differences, and how often the compiled
reader fell back to "malformed ..., after nested values". The first differing frames are printed
in hex, with both answers.

    nice -n 10 python fuzz/backend_diff.py 100000 codec     # every standard type's frames
    nice -n 10 python fuzz/backend_diff.py 60000 structs    # struct tables and instances
    nice -n 10 python fuzz/backend_diff.py 40000 hostile    # the hand-made hostile in-bands
    nice -n 10 python fuzz/backend_diff.py 40000 implicit   # one plain object nobody declared (10.9)

Run from the repository's root, with the compiled codec built.
"""

from __future__ import annotations

import collections
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import test_compiled_codec as codec_tests  # noqa: E402
import test_compiled_implicit_build as implicit_tests  # noqa: E402
import struct_hostile_in_bands  # noqa: E402
import struct_registries as struct_tests  # noqa: E402
from strategies import mutations  # noqa: E402

SHOWN = 20


def main(examples: int, corpus: str) -> None:
    tests: Any = {"structs": struct_tests, "implicit": implicit_tests}.get(corpus, codec_tests)
    frames = {"codec": codec_tests.FRAMES, "structs": struct_hostile_in_bands.FRAMES, "implicit": implicit_tests.FRAMES,
              "hostile": list(codec_tests.HOSTILE.values()) + codec_tests.FRAMES[-2:]}[corpus]
    counts: collections.Counter[str] = collections.Counter()
    shown: list[tuple[Any, ...]] = []

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(mutations(frames), st.booleans())
    def compare(frame: bytes, trusted: bool) -> None:
        compiled = tests.outcome(lambda: tests.COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
        pure = tests.outcome(lambda: tests.PURE_REGISTRY.deserialize(frame, trusted=trusted))
        counts["examples"] += 1
        counts["errors" if compiled[0] == "error" else "values"] += 1
        if "after nested values" in str(compiled):
            counts["compiled: after nested values"] += 1
        if compiled != pure:
            counts["differences"] += 1
            if len(shown) < SHOWN:
                shown.append((trusted, frame.hex(), compiled, pure))

    started = time.monotonic()
    compare()
    print(corpus, dict(counts), f"differences={counts['differences']}", f"{time.monotonic() - started:.0f} s")
    for trusted, frame, compiled, pure in shown:
        print(f"trusted={trusted} {frame}\n  compiled: {compiled}\n  pure:     {pure}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000, sys.argv[2] if len(sys.argv) > 2 else "codec")
