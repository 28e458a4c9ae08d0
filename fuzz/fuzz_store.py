"""Coverage-guided fuzz target (atheris): cas.Store.get of records (and blobs) planted in the store directory, some damaged: a value, an
IntegrityError or a DeserializationError, decoded untrusted, within the bound.

Run from the repository root (seeds: ``python fuzz/make_corpus.py fuzz/corpus``)::

    python fuzz/fuzz_store.py fuzz/corpus -dict=fuzz/serreg.dict -max_len=16384 -timeout=10 -rss_limit_mb=4096

The check is ``targets.check_store_get`` (fuzz/targets.py); see fuzz/fuzzing.py for
``SERREG_FUZZ_FINDINGS``.
"""

from __future__ import annotations

import atheris

from fuzzing import HARNESS_MODULES, run

with atheris.instrument_imports(include=HARNESS_MODULES):
    from targets import check_store_get

if __name__ == "__main__":
    run(check_store_get)
