"""The key test modules again, on the pure-Python codec (``SERREG_PURE_PYTHON=1``).

The rest of the suite runs on the codec serreg picked at import, the compiled
one where it is built; this module runs the modules that pin the bytes, the
values and the hardening in a subprocess that picks the pure-Python codec, so
CI covers both backends with one suite (the msgpack-python model).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MODULES = [
    "test_canonical_vectors.py",
    "test_standard_types.py",
    "test_hostile_frames.py",
    "test_fuzz_regressions.py",
    "test_mutations.py",
    "test_trust.py",
    "test_structs.py",
    "test_structs_evolution.py",
    "test_structs_hostile.py",
    "test_structs_vectors.py",
    "test_implicit_structs.py",
    "test_implicit_structs_pickled.py",
    "test_implicit_structs_options.py",
    "test_implicit_structs_hostile.py",
    "test_plain_fast_path.py",
    "test_backend_subclasses.py",
    "test_released_buffers.py",
    "test_user_mistakes.py",
]


@pytest.mark.skipif(os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0"), reason="this run is the pure one already")
def test_the_key_modules_pass_on_the_pure_python_codec():
    env = {**os.environ, "SERREG_PURE_PYTHON": "1"}
    backend = subprocess.run(
        [sys.executable, "-c", "import serreg.codec; print(serreg.codec.BACKEND)"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert (backend.returncode, backend.stdout, backend.stderr) == (0, "pure Python\n", "")
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *MODULES],
        cwd=TESTS, env=env, capture_output=True, text=True, timeout=1800,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    assert " passed" in completed.stdout.splitlines()[-1]


@pytest.mark.parametrize("setting", ["", "0", "1", "yes"])
def test_every_part_follows_the_same_reading_of_serreg_pure_python(setting):
    # Each compiled part (codec, scan, frame joins, implicit-struct walk) and its pure twin: all one or
    # all the other, "" and "0" meaning compiled, as the codec reads the variable (never a mix).
    script = (
        "import serreg.codec as c, serreg.implicit.walk as w, serreg.wire.frame as f\n"
        "print(c.COMPILED, c.SCAN_COMPILED, f.COMPILED, w.COMPILED)\n"
    )
    env = {**os.environ, "SERREG_PURE_PYTHON": setting}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    compiled = setting in ("", "0") and importlib.util.find_spec("serreg.codec._core") is not None
    assert done.stdout.split() == [str(compiled)] * 4
