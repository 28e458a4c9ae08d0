"""Replay a fuzz corpus through the decoder, outside atheris, e.g. under coverage.py.

    python -m coverage run --source=serreg fuzz/replay.py fuzz/corpus
    python -m coverage report

Every input is judged as the fuzz target judges it (fuzz/harness.py): an
exception other than a DeserializationError propagates. The script prints how
many inputs decoded and how many were rejected.
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import check_input, make_registry  # noqa: E402


def main(directories) -> int:
    """Replay every file; SERREG_FUZZ_TRUSTED=1 replays through the trusted path, as the fuzzer does."""
    registry = make_registry(trusted=os.environ.get("SERREG_FUZZ_TRUSTED") == "1")
    counts = {"value": 0, "error": 0}
    for directory in directories:
        for name in sorted(os.listdir(directory)):
            with open(os.path.join(directory, name), "rb") as f:
                data = f.read()
            counts["value" if check_input(registry, data) else "error"] += 1
    print(f"{sum(counts.values())} inputs: {counts['value']} decoded, {counts['error']} rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
