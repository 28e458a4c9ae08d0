"""Coverage-guided fuzz target (atheris): ``serreg inspect`` (text and --json) on the input as a file: a report, or one line on standard
error; never a traceback, a crash or more than the amplification bound.

Run from the repository root (seeds: ``python fuzz/make_corpus.py fuzz/corpus``)::

    python fuzz/fuzz_inspect.py fuzz/corpus -dict=fuzz/serreg.dict -max_len=16384 -timeout=10 -rss_limit_mb=4096

The check is ``targets.check_inspect`` (fuzz/targets.py); see fuzz/fuzzing.py for
``SERREG_FUZZ_FINDINGS``.
"""

from __future__ import annotations

import atheris

from fuzzing import HARNESS_MODULES, run

with atheris.instrument_imports(include=HARNESS_MODULES):
    from targets import check_inspect

if __name__ == "__main__":
    run(check_inspect)
