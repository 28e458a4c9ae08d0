"""serreg.cas.Store against a hostile or damaged directory (issue 11, sections 2 and 4).

``get`` decodes untrusted, from private copies of the files whose hash it
checked; ``put`` repairs what is missing or damaged; temporary files of
writers that died are removed, those of live writers are not.
"""

import hashlib
import os
import pickle
import subprocess
import sys
import textwrap
import time

import msgpack
import numpy as np
import pytest

import serreg
from serreg.cas import IntegrityError, Store, TEMPORARY_PREFIX
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import frame_pieces


def files_under(path, temporary=False):
    return sorted(os.path.join(root, name) for root, _, names in os.walk(path) for name in names
                  if name.startswith(TEMPORARY_PREFIX) == temporary)


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "store")


class Planted:
    """Unpickling it records that it ran (as a hostile pickle would run anything)."""

    ran = []

    def __reduce__(self):
        return (Planted.ran.append, ("the planted pickle ran",))


def test_a_record_planted_in_the_directory_is_decoded_untrusted(store):
    # put only writes canonical values, never pickles; c2967a7's get decoded a record that needs
    # pickle with the registry's trust (trusted, for the default registry): its code ran.
    in_band = class_id_hash("serreg.pickle5") + pickle.dumps(Planted(), protocol=5)
    digest = hashlib.sha256(b"".join(frame_pieces([in_band], [])[0])).digest()
    path = store._value_path(digest)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(msgpack.packb([1, in_band, []], use_bin_type=True))
    Planted.ran.clear()
    with pytest.raises(serreg.UntrustedClassIDError):
        store.get(digest)
    assert Planted.ran == []


def test_a_blob_shortened_under_a_reader_does_not_kill_it(tmp_path):
    # c2967a7 returned views of memory-mapped blobs: shortening the file afterwards made the
    # next read of the array die with SIGBUS.
    script = textwrap.dedent(f"""
        import os, numpy as np
        from serreg.cas import Store
        store = Store({str(tmp_path / "store")!r})
        digest = store.put({{"x": np.arange(1_000_000, dtype=np.float64)}})
        value = store.get(digest)
        for root, _, names in os.walk(store._blobs):
            for name in names:
                with open(os.path.join(root, name), "r+b") as f:
                    f.truncate(10)
        print(float(value["x"].sum()))
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, (completed.returncode, completed.stderr[-2000:])
    assert float(completed.stdout) == float(np.arange(1_000_000, dtype=np.float64).sum())


def test_get_decodes_the_bytes_it_hashed(store, monkeypatch):
    # The blob is read once into private memory; a change to the file after the hash check
    # cannot reach the decoded value (with memory maps it could).
    digest = store.put({"x": np.arange(100_000)})
    [blob] = files_under(store._blobs)
    value = store.get(digest)
    with open(blob, "r+b") as f:
        f.write(b"\xff" * 64)
    assert np.array_equal(value["x"], np.arange(100_000))
    assert not value["x"].flags.writeable


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "remove"])
def test_putting_the_value_again_repairs_a_damaged_blob(store, damage):
    # IntegrityError says "put the value again"; on c2967a7 put returned at once because the
    # record existed, and get kept failing.
    value = {"x": np.arange(100_000)}
    digest = store.put(value)
    [blob] = files_under(store._blobs)
    if damage == "remove":
        os.remove(blob)
    else:
        with open(blob, "r+b") as f:
            if damage == "truncate":
                f.truncate(100)
            else:
                f.seek(5000)
                f.write(b"\x01")
    with pytest.raises(IntegrityError, match="put the value again"):
        store.get(digest)
    assert store.put(value) == digest
    assert np.array_equal(store.get(digest)["x"], value["x"])


def test_putting_the_value_again_repairs_a_damaged_record(store):
    value = {"numbers": [1, 2, 3]}
    digest = store.put(value)
    [record] = files_under(store._values)
    with open(record, "wb") as f:
        f.write(b"\xc1 not msgpack")
    with pytest.raises(IntegrityError, match="put the value again"):
        store.get(digest)
    store.put(value)
    assert store.get(digest) == value


def _leave_temporary_file(directory, hold_lock: bool):
    """A process that creates a locked temporary file as put does, then dies (or keeps it)."""
    script = textwrap.dedent(f"""
        import fcntl, os, sys, tempfile, time
        handle, path = tempfile.mkstemp(dir={str(directory)!r}, prefix={TEMPORARY_PREFIX!r})
        fcntl.flock(handle, fcntl.LOCK_EX)
        os.write(handle, b"half a blob")
        os.utime(path, (time.time() - 3600, time.time() - 3600))  # an hour old
        print(path, flush=True)
        if {hold_lock!r}:
            time.sleep(600)
        os.kill(os.getpid(), 9)
    """)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    path = process.stdout.readline().strip()
    return process, path


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file locks")
def test_temporary_files_of_killed_writers_are_removed_and_live_ones_kept(store):
    # c2967a7 left them forever (12 killed writers: 56 MiB).
    value = {"x": np.arange(100_000)}
    store.put(value)
    [blob] = files_under(store._blobs)
    directory = os.path.dirname(blob)
    dead, dead_path = _leave_temporary_file(directory, hold_lock=False)
    dead.wait(60)
    live, live_path = _leave_temporary_file(directory, hold_lock=True)
    try:
        fresh = os.path.join(directory, TEMPORARY_PREFIX + "just-created")
        open(fresh, "wb").close()  # younger than a minute: maybe a writer that has not locked it yet
        os.remove(blob)
        store.put(value)  # writes into that directory, and cleans it
        left = files_under(store._blobs, temporary=True)
        assert dead_path not in left
        assert live_path in left and fresh in left
    finally:
        live.kill()
        live.wait(60)
    assert store.remove_stale_temporary_files() == 1  # the live writer's, now that it is dead
    assert files_under(store._blobs, temporary=True) == [fresh]


def test_put_of_an_intact_value_rewrites_nothing(store):
    value = {"x": np.arange(100_000), "y": "small"}
    digest = store.put(value)
    before = {path: os.stat(path).st_mtime_ns for path in files_under(store.directory)}
    time.sleep(0.01)
    assert store.put(value) == digest
    assert {path: os.stat(path).st_mtime_ns for path in files_under(store.directory)} == before
