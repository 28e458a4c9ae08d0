"""An Arrow column read from memory someone else can write stays safe to use when that memory changes.

``serreg.load`` maps a file and ``deserialize`` of a bytearray (or of shared memory) reads Arrow
columns as views of the frame, after validating them. Pyarrow reads offsets, dictionary indices,
union type ids, views and run ends without bounds checks once an array has been validated, so a
process that rewrote them in the file after the read (the last string's end offset set to 1 GiB)
made the reader's next access of the column crash. The reader now copies those buffers (not the
values) into private memory when the frame is not an immutable ``bytes``
(``serreg/serializers/arrow_nodes.py``): rewriting the whole file after the read changes values,
never where they are. Each case runs in a child process (a crash fails the test).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import mmap, os, sys, tempfile
    import pyarrow as pa
    import serreg

    n = 300
    strings = ["s%05d-%s" % (i, "x" * (i % 20)) for i in range(n)]
    columns = {
        "string": pa.array(strings),
        "large_string": pa.array(strings, pa.large_string()),
        "binary": pa.array([s.encode() for s in strings]),
        "list": pa.array([[i] * (i % 4) for i in range(n)]),
        "large_list": pa.array([[i] * (i % 4) for i in range(n)], pa.large_list(pa.int64())),
        "map": pa.array([[("k", i)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
        "list_view": pa.array([[i] * (i % 4) for i in range(n)], pa.list_view(pa.int64())),
        "dictionary": pa.array(strings).dictionary_encode(),
        "dense_union": pa.UnionArray.from_dense(pa.array([i % 2 for i in range(n)], pa.int8()),
                                                pa.array([i // 2 for i in range(n)], pa.int32()),
                                                [pa.array(range(n)), pa.array(strings)]),
        "sparse_union": pa.UnionArray.from_sparse(pa.array([i % 2 for i in range(n)], pa.int8()),
                                                  [pa.array(range(n)), pa.array(strings)]),
        "string_view": pa.array(strings, pa.string_view()),
        "run_end_encoded": pa.RunEndEncodedArray.from_arrays(pa.array(range(1, n + 1), pa.int32()), pa.array(strings)),
    }
    table = pa.table(columns)
    frame = serreg.serialize(table).to_bytes()
    how, trusted = sys.argv[1], sys.argv[2] == "trusted"
    if how == "load":
        path = os.path.join(tempfile.mkdtemp(), "table.frame")
        with open(path, "wb") as f:
            f.write(frame)
        back = serreg.load(path, trusted=trusted)
        f = open(path, "r+b")
        memory = mmap.mmap(f.fileno(), 0)  # another writer of the same file
    else:
        memory = bytearray(frame)
        back = serreg.deserialize(memory, trusted=trusted)
    assert back.equals(table)
    for fill in (b"\\xff", b"\\x7f", b"\\x00"):
        memory[:] = fill * len(memory)  # everything rewritten after the read: offsets, indices, values
        for name in columns:
            try:
                back.column(name).to_pylist()
            except Exception:
                pass  # a value that is no longer valid (not UTF-8, say) may be refused; reading it must not crash
    print("read")
""")


@pytest.mark.parametrize("trusted", ["untrusted", "trusted"])
@pytest.mark.parametrize("how", ["load", "bytearray"])
def test_rewriting_the_frame_after_the_read_changes_values_not_where_they_are(how: str, trusted: str) -> None:
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT, how, trusted], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "read", (how, trusted, done.returncode, done.stderr[-3000:])
