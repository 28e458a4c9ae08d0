"""Replay a fuzz corpus through one fuzz check, outside atheris, e.g. under coverage.py.

    python -m coverage run --source=serreg fuzz/replay.py fuzz/corpus
    SERREG_FUZZ_TARGET=inspect python fuzz/replay.py fuzz/corpus-inspect
    python -m coverage report

Every input is judged as the fuzz target judges it (fuzz/harness.py,
fuzz/targets.py): a finding propagates. ``SERREG_FUZZ_TARGET`` names the check
(deserialize, the default, or one of targets.CHECKS); the script prints how
many inputs it replayed (and, for deserialize, how many decoded).
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import check_input, make_registry, warm_up  # noqa: E402


def main(directories) -> int:
    """Replay every file; SERREG_FUZZ_TRUSTED=1 replays deserialize through the trusted path, as the fuzzer does."""
    target = os.environ.get("SERREG_FUZZ_TARGET", "deserialize")
    warm_up()
    counts = {"value": 0, "error": 0}
    if target == "deserialize":
        registry = make_registry(trusted=os.environ.get("SERREG_FUZZ_TRUSTED") == "1")

        def check(data):
            counts["value" if check_input(registry, data) else "error"] += 1
    else:
        from targets import CHECKS

        def check(data):
            CHECKS[target](data)
            counts["value"] += 1
    for directory in directories:
        for name in sorted(os.listdir(directory)):
            with open(os.path.join(directory, name), "rb") as f:
                check(f.read())
    if target == "deserialize":
        print(f"{sum(counts.values())} inputs: {counts['value']} decoded, {counts['error']} rejected")
    else:
        print(f"{counts['value']} inputs replayed through {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
