"""Coverage-guided fuzz target (atheris): signed frames read with a key: a forged or damaged signature is never decoded; frames signed by
the harness reach the decoder behind a valid signature, from every kind of memory (the private copy).

Run from the repository root (seeds: ``python fuzz/make_corpus.py fuzz/corpus``)::

    python fuzz/fuzz_signed.py fuzz/corpus -dict=fuzz/serreg.dict -max_len=16384 -timeout=10 -rss_limit_mb=4096

The check is ``targets.check_signed`` (fuzz/targets.py); see fuzz/fuzzing.py for
``SERREG_FUZZ_FINDINGS``.
"""

from __future__ import annotations

import atheris

from fuzzing import HARNESS_MODULES, run

with atheris.instrument_imports(include=HARNESS_MODULES):
    from targets import check_signed

if __name__ == "__main__":
    run(check_signed)
