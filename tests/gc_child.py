"""Runs a garbage-collection scenario in a child process (``-X faulthandler``) and checks it did not crash.

The scenarios of ``test_gc_buffer_views.py`` and ``test_gc_pickle_parts.py`` keep serreg's buffers in
garbage cycles; on CPython 3.11 a buffer export of a memoryview collected in such a cycle can crash
the process (gh-77894), so each scenario runs in its own child, under both backends.
"""

from __future__ import annotations

import os
import subprocess
import sys


def assert_collects(scenario: str, code: str, pure: bool) -> None:
    """Run ``code`` (which ends by printing 'collected') in a child; fail on a crash or a buffer error."""
    env = dict(os.environ)
    env.pop("SERREG_PURE_PYTHON", None)
    if pure:
        env["SERREG_PURE_PYTHON"] = "1"
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and done.stdout.strip().endswith("collected"), (
        f"{scenario} ({'pure' if pure else 'compiled'}): exit code {done.returncode}\n{done.stderr[-3000:]}")
    assert "exported buffer" not in done.stderr, done.stderr[-3000:]
