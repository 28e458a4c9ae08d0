"""``python -m benchmarks``: the same as ``serreg bench``."""

import sys

from serreg.cli import main

sys.exit(main(["bench", *sys.argv[1:]]))
