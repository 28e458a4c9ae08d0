"""serreg.dump / serreg.load: a frame written straight into a file and read back in place.

Zero-copy is checked against the process's own memory map: the decoded
arrays and Arrow buffers lie inside the mapping of the file. Damaged files are
read in a child process, so a SIGBUS would show as a crash instead of killing
the test run.
"""

import os
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pyarrow as pa
import pytest

import serreg

KEY = b"k" * 32


def mappings_of(path):
    """The address ranges of this process mapped from ``path`` (Linux /proc/self/maps)."""
    real = os.path.realpath(path)
    ranges = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            if len(fields) == 6 and fields[5].strip().removesuffix(" (deleted)") == real:
                start, end = (int(x, 16) for x in fields[0].split("-"))
                ranges.append((start, end))
    return ranges


def inside(address, length, ranges):
    return any(start <= address and address + length <= end for start, end in ranges)


linux_only = pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads /proc/self/maps")


@linux_only
def test_an_ndarray_is_a_read_only_view_of_the_mapped_file(tmp_path):
    path = tmp_path / "a.frame"
    a = np.arange(100_000, dtype=np.int64).reshape(1000, 100)
    size = serreg.dump(a, path)
    assert size == os.path.getsize(path)
    b = serreg.load(path)
    np.testing.assert_array_equal(a, b)
    assert b.dtype == a.dtype and not b.flags.writeable
    assert inside(b.ctypes.data, b.nbytes, mappings_of(path))
    assert b.ctypes.data % 64 == 0


@linux_only
def test_arrow_buffers_are_views_of_the_mapped_file(tmp_path):
    path = tmp_path / "t.frame"
    table = pa.table({"n": pa.array(np.arange(50_000, dtype=np.int32)), "s": [str(i) for i in range(50_000)]})
    serreg.dump(table, path)
    back = serreg.load(path)
    assert back.equals(table)
    ranges = mappings_of(path)
    for column in back.columns:
        for chunk in column.chunks:
            for i, buffer in enumerate(chunk.buffers()):
                if buffer is not None and buffer.size:
                    # values stay in the file; a string column's offsets are copied (another writer of
                    # the file could otherwise point them outside their data after the check)
                    structural = pa.types.is_string(chunk.type) and i == 1
                    assert inside(buffer.address, buffer.size, ranges) != structural, (chunk.type, i)


def test_values_stay_valid_after_the_file_is_replaced_or_removed(tmp_path):
    path = tmp_path / "v.frame"
    serreg.dump({"x": np.full(10_000, 7, dtype=np.uint8), "b": b"abc"}, path)
    first = serreg.load(path)
    serreg.dump({"x": np.zeros(3, dtype=np.uint8), "b": b""}, path)  # renamed into place: the old file lives on
    os.unlink(path)
    assert int(first["x"].sum()) == 70_000 and first["b"] == b"abc"


def test_dump_writes_the_buffers_without_a_copy_of_the_frame(tmp_path):
    a = np.ones(32 << 20, dtype=np.uint8)
    tracemalloc.start()
    try:
        serreg.dump(a, tmp_path / "big.frame")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"dump allocated {peak} bytes for a 32 MiB array"
    assert a.nbytes < os.path.getsize(tmp_path / "big.frame") < a.nbytes + 4096


def test_load_is_untrusted_by_default(tmp_path):
    path = tmp_path / "p.frame"
    serreg.dump({1, frozenset({2})}, tmp_path / "ok.frame")
    assert serreg.load(tmp_path / "ok.frame") == {1, frozenset({2})}
    serreg.dump(Exception("pickled by the fallback"), path)
    with pytest.raises(serreg.UntrustedClassIDError):
        serreg.load(path)
    assert str(serreg.load(path, trusted=True)) == "pickled by the fallback"


def test_mmap_false_reads_private_memory(tmp_path):
    path = tmp_path / "m.frame"
    serreg.dump(np.arange(1000), path)
    b = serreg.load(path, mmap=False)
    assert mappings_of(path) == [] or not inside(b.ctypes.data, b.nbytes, mappings_of(path))
    np.testing.assert_array_equal(b, np.arange(1000))


def test_limits_hold_before_mapping(tmp_path):
    path = tmp_path / "l.frame"
    serreg.dump(np.zeros(1 << 20, dtype=np.uint8), path)
    with pytest.raises(serreg.LimitExceededError):
        serreg.load(path, limits=serreg.Limits(max_frame_size=1 << 16))
    with pytest.raises(serreg.LimitExceededError):
        serreg.load(path, limits=serreg.Limits(max_buffers=0))


@linux_only
def test_signed_frames_are_verified_and_decoded_from_a_private_copy(tmp_path):
    path = tmp_path / "s.frame"
    serreg.dump(np.arange(10_000), path, key=KEY)
    b = serreg.load(path, key=KEY)
    np.testing.assert_array_equal(b, np.arange(10_000))
    assert not inside(b.ctypes.data, b.nbytes, mappings_of(path)), "a signed frame's buffers are copied"
    with pytest.raises(serreg.SignatureError):
        serreg.load(path, key=b"another key of 32 bytes........")
    serreg.dump(np.arange(3), path)
    with pytest.raises(serreg.SignatureError):
        serreg.load(path, key=KEY)


def run_child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("keep", [0, 10, 31, 32, 200, 4096, -1])
def test_a_truncated_file_is_an_error_not_a_crash(tmp_path, keep):
    path = tmp_path / "t.frame"
    size = serreg.dump(np.arange(100_000, dtype=np.int64), path)
    os.truncate(path, size - 1 if keep == -1 else keep)
    child = run_child(f"""
        import serreg
        for mmap in (True, False):
            try:
                serreg.load({str(path)!r}, mmap=mmap)
            except serreg.DeserializationError as error:
                print(type(error).__name__, "|", error)
            else:
                print("decoded a truncated file")
    """)
    assert child.returncode == 0, f"the reader died (exit {child.returncode}): {child.stderr}"
    lines = child.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("DeserializationError |") for line in lines), child.stdout
    assert str(path) in lines[0]


def test_a_longer_file_is_refused(tmp_path):
    path = tmp_path / "g.frame"
    serreg.dump([1, 2, 3], path)
    with open(path, "ab") as f:
        f.write(b"\0" * 64)
    with pytest.raises(serreg.DeserializationError, match="followed by other data"):
        serreg.load(path)


def test_not_a_frame(tmp_path):
    path = tmp_path / "n.frame"
    path.write_bytes(b"PK\3\4" + bytes(100))
    with pytest.raises(serreg.DeserializationError, match="not a serreg frame"):
        serreg.load(path)
