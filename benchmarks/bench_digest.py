"""serreg.digest of a large ndarray against hashlib.sha256 over the same bytes.

``serreg.digest`` writes the canonical frame (section 9 of docs/FORMAT.md) and
feeds its pieces to SHA-256 one by one: the array's buffer is hashed where it
lies, never copied into a joined frame. A float array is also scanned for -0.0
and NaN (canonical form); an integer array is not. Layouts that the canonical
form must repack (F order, big-endian) are measured too: they cost one copy.

MB/s = array bytes / seconds; medians of several runs after a warm-up.

    python benchmarks/bench_digest.py [--mb 100] [--runs 7]
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

import serreg
from serreg.bench.measure import median_of_runs as measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="array size in MB (10^6 bytes)")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    count = args.mb * 1_000_000 // 8
    rng = np.random.default_rng(0)
    cases = {
        "float64, C order": rng.standard_normal(count),
        "int64, C order": rng.integers(-(2**62), 2**62, count),
    }
    square = int(count**0.5)
    cases["float64, F order (repacked)"] = np.asfortranarray(rng.standard_normal((square, square)))
    cases["float64, big-endian (swapped)"] = rng.standard_normal(count).astype(">f8")

    print(f"{'array':32} {'MB':>6} {'hashlib.sha256':>15} {'serreg.digest':>14} {'ratio':>6}")
    for name, array in cases.items():
        size = array.nbytes
        reference = np.ascontiguousarray(array)
        sha = measure(lambda: hashlib.sha256(memoryview(reference).cast("B")).digest(), args.runs)
        digest = measure(lambda: serreg.digest(array), args.runs)
        print(f"{name:32} {size / 1e6:6.0f} {size / 1e6 / sha:10.0f} MB/s {size / 1e6 / digest:9.0f} MB/s "
              f"{sha / digest:6.2f}")


if __name__ == "__main__":
    main()
