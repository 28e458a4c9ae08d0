"""serreg is typed: ``mypy --strict`` reports no error on the package (settings in pyproject.toml).

The public API is annotated and the package ships ``py.typed``, so a user's
type checker reads serreg's own annotations. Skipped only where mypy is not
installed (it comes with ``serreg[test]``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_reports_no_error_on_the_package():
    pytest.importorskip("mypy", reason="mypy is not installed (it comes with serreg[test])")
    completed = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "serreg"],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert completed.returncode == 0, completed.stdout[-20000:] + completed.stderr[-5000:]
    assert completed.stdout.strip() == "", completed.stdout[-20000:]


def test_the_package_ships_its_type_information():
    assert (ROOT / "serreg" / "py.typed").is_file()
    for stub in ("codec/_scan.pyi", "codec/_core.pyi", "wire/_frame.pyi"):  # the compiled twins' signatures
        assert (ROOT / "serreg" / stub).is_file(), stub
