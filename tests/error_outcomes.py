"""How Python reads each hostile frame: the corpus tests/test_error_parity_java.py compares with Java.

The corpus is every frame fuzz/hostile_seeds.py builds and every input in tests/fuzz_regressions/
(read as the fuzz target reads it). Each frame is read trusted, then untrusted; a reading ends in
``["value"]`` or ``[error class, byte offset or None, message]``. Run as a script, it prints the
outcomes of the codec serreg picked (``SERREG_PURE_PYTHON=1`` for the pure one) as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fuzz"))
sys.path.insert(0, str(ROOT / "tests"))

import serreg  # noqa: E402
from hostile_seeds import corpus  # noqa: E402
from inputs import frame_from_input  # noqa: E402

__all__ = ["frames", "outcomes"]


def frames() -> dict[str, bytes]:
    """The hostile seeds, then the fuzz regressions (named ``regression NAME``)."""
    out = dict(corpus())
    for path in sorted((ROOT / "tests" / "fuzz_regressions").glob("*.bin")):
        out[f"regression {path.stem}"] = frame_from_input(path.read_bytes())
    return out


def _reading(frame: bytes, trusted: bool) -> list[Any]:
    try:
        serreg.deserialize(frame, trusted=trusted)
    except serreg.SerregError as error:
        return [type(error).__name__, getattr(error, "offset", None), str(error)]
    return ["value"]


def outcomes(corpus_frames: dict[str, bytes]) -> dict[str, list[list[Any]]]:
    """name -> [trusted reading, untrusted reading]."""
    return {name: [_reading(frame, True), _reading(frame, False)] for name, frame in corpus_frames.items()}


if __name__ == "__main__":
    json.dump(outcomes(frames()), sys.stdout)
