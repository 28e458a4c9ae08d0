"""What someone else put in a store's directory (or at a path given to ``serreg.load``) is refused, not read.

``Store.get`` opened a record or blob with ``open`` and read it whole: a FIFO planted under a record's
name blocked ``get`` (and ``put``, which checks what is stored) forever, a symbolic link to
``/dev/zero`` read until memory ran out, a directory raised ``IsADirectoryError``, and a record
naming a 64 GiB sparse blob (or a 64 GiB record) was read into memory before any hash was checked.
Now every stored file is opened without waiting (a FIFO is refused), must be a regular file, and the
record's size and the blob sizes it names are checked against ``Limits.max_frame_size`` before they
are read: an ``IntegrityError`` or ``LimitExceededError`` naming the file. ``put`` writes such a name
again. ``serreg.load`` refuses a FIFO or device the same way. Each case runs in a child process with
a 2 GiB address-space limit and a timeout, so a hang or a runaway read fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os, resource, sys, tempfile
    import msgpack, numpy as np
    import serreg
    from serreg.cas import Store

    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
    case = sys.argv[1]
    store = Store(tempfile.mkdtemp())
    digest = store.put({"a": 1})
    record = store._value_path(digest)
    call = "get"
    if case == "fifo record":
        os.unlink(record)
        os.mkfifo(record)
    elif case == "fifo record, put again":
        os.unlink(record)
        os.mkfifo(record)
        call = "put"
    elif case == "record linked to /dev/zero":
        os.unlink(record)
        os.symlink("/dev/zero", record)
    elif case == "directory as record":
        os.unlink(record)
        os.mkdir(record)
    elif case == "64 GiB record":
        with open(record, "wb") as f:
            f.truncate(64 * 2**30)
    elif case == "record naming a 64 GiB blob":
        digest = store.put(np.arange(100_000))
        record = store._value_path(digest)
        with open(record, "rb") as f:
            parsed = msgpack.unpackb(f.read())
        blob, size = b"\\x01" * 32, 64 * 2**30
        parsed[2][0] = [size, blob]
        with open(record, "wb") as f:
            f.write(msgpack.packb(parsed, use_bin_type=True))
        path = store._blob_path(blob)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.truncate(size)
    elif case == "fifo blob":
        digest = store.put(np.arange(100_000))
        record = store._value_path(digest)
        with open(record, "rb") as f:
            (length, blob), = msgpack.unpackb(f.read())[2]
        os.unlink(store._blob_path(blob))
        os.mkfifo(store._blob_path(blob))
    elif case == "load of a fifo":
        call = "load"
        os.mkfifo(record + ".frame")
    try:
        if call == "get":
            store.get(digest)
        elif call == "put":
            assert store.put({"a": 1}) == digest
            assert store.get(digest) == {"a": 1}
        else:
            serreg.load(record + ".frame")
        print("value")
    except serreg.SerregError as error:
        print(type(error).__name__, str(error).replace(os.path.dirname(os.path.dirname(record)), "<dir>")[:300])
    except BaseException as error:
        print("escaped", type(error).__name__, str(error)[:300])
""")

EXPECTED = {
    "fifo record": ("IntegrityError", "is a FIFO"),
    "fifo record, put again": ("value", ""),
    "record linked to /dev/zero": ("IntegrityError", "is a character device"),
    "directory as record": ("IntegrityError", "Is a directory"),
    "64 GiB record": ("LimitExceededError", "max_frame_size"),
    "record naming a 64 GiB blob": ("LimitExceededError", "names blobs of 68719476736 bytes"),
    "fifo blob": ("IntegrityError", "is a FIFO"),
    "load of a fifo": ("DeserializationError", "is a FIFO"),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_a_planted_file_is_refused_without_being_read(case: str, tmp_path: object) -> None:
    try:
        done = subprocess.run([sys.executable, "-c", SCRIPT, case], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: the call blocked (no answer in 60 s)")
    assert done.returncode == 0, (case, done.returncode, done.stderr[-2000:])
    kind, words = EXPECTED[case]
    answer = done.stdout.strip()
    assert answer.startswith(kind) and words in answer, (case, answer)
