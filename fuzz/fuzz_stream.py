"""Coverage-guided fuzz target (atheris): streams of frames read one by one (serreg.wire.frame.read_frame_bytes) and decoded: each a value, up to
the end or the first DeserializationError, within the bound.

Run from the repository root (seeds: ``python fuzz/make_corpus.py fuzz/corpus``)::

    python fuzz/fuzz_stream.py fuzz/corpus -dict=fuzz/serreg.dict -max_len=16384 -timeout=10 -rss_limit_mb=4096

The check is ``targets.check_stream`` (fuzz/targets.py); see fuzz/fuzzing.py for
``SERREG_FUZZ_FINDINGS``.
"""

from __future__ import annotations

import atheris

from fuzzing import HARNESS_MODULES, run

with atheris.instrument_imports(include=HARNESS_MODULES):
    from targets import check_stream

if __name__ == "__main__":
    run(check_stream)
