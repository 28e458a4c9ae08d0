"""Replay a fuzz corpus through the decoder, outside atheris, e.g. under coverage.py.

    python -m coverage run --source=serreg,serializers fuzz/replay.py fuzz/corpus
    python -m coverage report

Every input must give a value or a DeserializationError, as in the fuzz target;
the script prints how many inputs gave which, and exits non-zero otherwise.
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import serreg  # noqa: E402
import serializers.numpy  # noqa: E402
import serializers.pyarrow  # noqa: E402
from inputs import frame_from_input  # noqa: E402

REGISTRY = serreg.Registry(plugins=False, trusted=False)
serializers.numpy.register(REGISTRY)
serializers.pyarrow.register(REGISTRY)


def main(directories) -> int:
    counts = {"value": 0, "error": 0}
    for directory in directories:
        for name in sorted(os.listdir(directory)):
            with open(os.path.join(directory, name), "rb") as f:
                data = f.read()
            try:
                REGISTRY.serialize(REGISTRY.deserialize(frame_from_input(data)))
                counts["value"] += 1
            except serreg.DeserializationError:
                counts["error"] += 1
    print(f"{sum(counts.values())} inputs: {counts['value']} decoded, {counts['error']} rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
