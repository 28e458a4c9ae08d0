"""Coverage-guided fuzz target (atheris): digest, canonical serialize and cas.Store.put of every value the untrusted decoder returns: within
the amplification bound of the input, and the canonical form is a fixed point.

Run from the repository root (seeds: ``python fuzz/make_corpus.py fuzz/corpus``)::

    python fuzz/fuzz_canonical.py fuzz/corpus -dict=fuzz/serreg.dict -max_len=16384 -timeout=10 -rss_limit_mb=4096

The check is ``targets.check_canonical`` (fuzz/targets.py); see fuzz/fuzzing.py for
``SERREG_FUZZ_FINDINGS``.
"""

from __future__ import annotations

import atheris

from fuzzing import HARNESS_MODULES, run

with atheris.instrument_imports(include=HARNESS_MODULES):
    from targets import check_canonical

if __name__ == "__main__":
    run(check_canonical)
