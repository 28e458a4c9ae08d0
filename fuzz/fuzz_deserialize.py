"""Coverage-guided fuzz target for the Python decoder (atheris).

Whatever bytes reach ``Registry.deserialize`` must give a value or a
DeserializationError, within the amplification bound (fuzz/amplification.py:
16 x size + 32 MiB of memory, linear time); any other exception, a hang or
runaway memory is a finding. The registry runs in untrusted mode (no pickle:
unpickling hostile bytes runs code by design, so it is not the decoder's bug)
with the numpy and Arrow plug-ins loaded; ``SERREG_FUZZ_TRUSTED=1`` fuzzes the
trusted path instead.

The first input byte picks whether the rest is a whole frame or an in-band
section plus buffers that are framed correctly first (fuzz/inputs.py).

Run (from the repository root)::

    python fuzz/make_corpus.py fuzz/corpus          # seeds: real frames of every type
    python fuzz/fuzz_deserialize.py fuzz/corpus -dict=fuzz/serreg.dict -max_len=16384 -timeout=10 -rss_limit_mb=4096

See fuzz/fuzzing.py for ``SERREG_FUZZ_FINDINGS``; the other targets
(fuzz_signed.py, fuzz_inspect.py, fuzz_canonical.py, fuzz_store.py,
fuzz_stream.py) are run the same way.
"""

from __future__ import annotations

import os

import atheris

from fuzzing import HARNESS_MODULES, run

with atheris.instrument_imports(include=HARNESS_MODULES):
    from harness import check_input, make_registry, warm_up

# SERREG_FUZZ_TRUSTED=1 fuzzes the trusted path instead (see harness.make_registry).
REGISTRY = make_registry(trusted=os.environ.get("SERREG_FUZZ_TRUSTED") == "1")
warm_up()


def decode(data: bytes) -> None:
    check_input(REGISTRY, data)


if __name__ == "__main__":
    run(decode)
