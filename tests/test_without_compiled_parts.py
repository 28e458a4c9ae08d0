"""serreg as a build without a C compiler leaves it: no compiled part, one warning, the pure-Python codec.

setup.py marks every extension optional, so ``pip install`` succeeds without a compiler. What the
user then sees is checked here on a copy of the package without its compiled modules, run by an
interpreter that skips the site's .pth files (an editable install's finder would bring them back).
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "serreg"
WARNING = "RuntimeWarning: serreg's compiled codec is not built (was a C compiler missing when serreg was installed?)"


@pytest.fixture(scope="module")
def uncompiled(tmp_path_factory) -> dict[str, str]:
    """The environment of an interpreter that imports a copy of serreg without any compiled module."""
    root = tmp_path_factory.mktemp("uncompiled")
    shutil.copytree(SOURCE, root / "serreg", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    parents = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    env = {key: value for key, value in os.environ.items() if key != "SERREG_PURE_PYTHON"}
    env["PYTHONPATH"] = os.pathsep.join([str(root), *(p for p in parents if os.path.isdir(p))])
    return env


def _run(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-S", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_one_warning_at_the_users_import_and_the_pure_codec_round_trips(uncompiled, tmp_path):
    script = tmp_path / "user_code.py"
    script.write_text(
        "import serreg\n"
        "import serreg.cli, serreg.codec\n"
        "frame = serreg.serialize({'a': (1, b'x'), 'b': [1.5, None]}).to_bytes()\n"
        "assert serreg.deserialize(frame) == {'a': (1, b'x'), 'b': [1.5, None]}\n"
        "print(serreg.__file__.startswith(" + repr(uncompiled["PYTHONPATH"].split(os.pathsep)[0]) + "), serreg.codec.BACKEND)\n"
    )
    completed = _run(uncompiled, str(script), cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "True pure Python\n"
    assert completed.stderr.count("compiled codec is not built") == 1, completed.stderr
    # It points at the user's import, not at a line inside serreg.
    assert completed.stderr.startswith(f"{script}:1: {WARNING}"), completed.stderr


def test_the_warning_is_silenced_by_choosing_the_pure_codec(uncompiled, tmp_path):
    completed = _run({**uncompiled, "SERREG_PURE_PYTHON": "1"}, "-c", "import serreg; print(serreg.codec.BACKEND)", cwd=tmp_path)
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "pure Python\n", "")


def test_version_says_the_compiled_extension_is_not_built(uncompiled, tmp_path):
    completed = _run(uncompiled, "-m", "serreg", "--version", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert "codec: pure Python (the compiled extension is not built)" in completed.stdout.splitlines()
