"""The command line given wrong arguments or bad files: one line on standard error, no traceback, the documented status.

Exit statuses (``serreg --help``): 0 done, 1 a file, frame or module given failed, 2 a wrong command line.
The last test is the other command a newcomer runs: the test suite, before its dependencies are installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import serreg
from serreg import cli


def test_help_states_the_exit_statuses(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Exit status: 0 done, 1 a file, frame or module given failed" in text and "2 a wrong command line" in text


@pytest.mark.parametrize("rows", ["-5", "0", "2.5", "many"])
def test_demo_refuses_a_row_count_that_is_not_a_positive_whole_number(rows, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["demo", "--rows", rows])
    assert exit_info.value.code == 2
    [*_, last] = capsys.readouterr().err.splitlines()
    assert last == f"serreg demo: error: argument --rows: expected a whole number of rows, 1 or more, not {rows!r}"


BENCH = ["bench", "--quick", "--no-progress", "--no-json", "--no-chart", "--peers", "pickle5"]


def test_bench_names_the_file_and_frame_of_a_damaged_frames_file(tmp_path, capsys):
    path = tmp_path / "values.srg"
    frame = serreg.serialize([1, 2, 3]).to_bytes()
    path.write_bytes(frame + b"hello, not a frame" * 3)
    assert cli.main([*BENCH, "--frames", str(path)]) == 1
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith(f"serreg bench: error: {path}: frame 1 (starting at byte {len(frame)}): not a serreg frame")
    assert captured.out == ""


def test_bench_reports_a_missing_file_and_a_module_that_is_not_there_as_failures(tmp_path, capsys):
    assert cli.main([*BENCH, "--frames", str(tmp_path / "nothing.srg")]) == 1
    assert capsys.readouterr().err.startswith("serreg bench: error: [Errno 2] No such file or directory")
    assert cli.main([*BENCH, "--payload", "no_such_module_here:make"]) == 1
    assert "serreg bench: error: No module named 'no_such_module_here'" in capsys.readouterr().err


def test_bench_options_naming_what_is_not_there_are_usage_errors(capsys):
    assert cli.main([*BENCH, "--payloads", "nope"]) == 2
    assert capsys.readouterr().err.startswith("serreg bench: error: unknown payload 'nope'; choose from ")


def test_bench_without_its_extra_says_which_extra_to_install(tmp_path):
    # As after a plain ``pip install serreg``: numpy cannot be imported.
    code = textwrap.dedent("""
        import sys

        class NotInstalled:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] == "numpy":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, NotInstalled())
        from serreg.cli import main
        sys.exit(main(["bench", "--quick", "--no-progress", "--no-json", "--no-chart", "--payloads", "ndarray_100MB",
                       "--peers", "pickle5"]))
    """)
    completed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr == "serreg bench: error: No module named 'numpy'; the benchmark needs its extra: " \
                               "pip install 'serreg[bench]'\n"


def test_a_test_run_without_the_test_dependencies_ends_saying_how_to_install_them(tmp_path):
    # As ``python -m pytest`` after a plain ``pip install -e .``: a test module cannot import pyarrow.
    (tmp_path / "test_needs_arrow.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'pyarrow'\", name='pyarrow')\n"
    )
    tests = str(Path(__file__).resolve().parent)
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
         str(tmp_path)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": tests}, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode != 0
    assert completed.stdout.rstrip().splitlines()[-1] == (
        "test modules could not be imported without pyarrow: install the test dependencies with  "
        "python -m pip install -e \".[test]\"  (README, Set up)"
    )
