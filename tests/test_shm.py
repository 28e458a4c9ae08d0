"""serreg.shm and serreg.integrations.processes: values handed between processes through shared memory.

Every test uses its own region directory ($SERREG_SHM_DIR, inherited by the
child processes). Children that might crash (a shortened region) run in a
subprocess whose exit status is checked.
"""

import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing

import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg import shm
from serreg.integrations.processes import Shared


@pytest.fixture(autouse=True)
def region_directory(tmp_path, monkeypatch):
    monkeypatch.setenv(shm.DIRECTORY_VARIABLE, str(tmp_path / "regions"))
    monkeypatch.setattr(shm, "CLEANUP_INTERVAL", 0)  # every open looks for stale regions
    return tmp_path / "regions"


def regions():
    return sorted(name for name in os.listdir(shm.directory()) if name.startswith(shm.REGION_PREFIX))


def run_child(code: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=120)


def age(name, seconds=3600):
    path = os.path.join(shm.directory(), name)
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_the_handle_is_small_and_names_only_a_region():
    handle = shm.put(np.zeros(1 << 20))
    data = pickle.dumps(handle)
    assert len(data) < 200 and pickle.loads(data) == handle
    assert handle.writer_pid == os.getpid() and handle.size > 1 << 23
    for bad in ["../../etc/passwd", "region-1-xyz", "region-12-" + "0" * 31 + "/"]:
        with pytest.raises(ValueError):
            shm.Handle(bad, 10)
    with pytest.raises(TypeError):
        shm.get(handle.name)
    handle.release()


def test_a_value_read_in_another_process_is_exact():
    table = pa.table({"x": pa.array(np.arange(100_000, dtype=np.float64)), "s": [f"r{i}" for i in range(100_000)]})
    with shm.put({"a": np.arange(1 << 20, dtype=np.int32).reshape(1024, 1024), "t": table, "b": b"\x00\x01"}) as handle:
        child = run_child("""
            import pickle, sys, numpy as np, pyarrow as pa, serreg
            value = serreg.shm.get(pickle.loads(bytes.fromhex(sys.argv[1])))
            a, t = value["a"], value["t"]
            assert not a.flags.writeable and a.shape == (1024, 1024)
            assert int(a.sum(dtype=np.int64)) == sum(range(1 << 20)), a.sum()
            assert t.column("x").to_numpy().sum() == sum(range(100_000))
            assert t.column("s")[99_999].as_py() == "r99999" and value["b"] == b"\\x00\\x01"
            print("ok")
        """, pickle.dumps(handle).hex())
        assert child.returncode == 0 and child.stdout.strip() == "ok", child.stderr
    assert regions() == []


def test_values_outlive_the_handle_and_the_name():
    handle = shm.put(np.arange(1000))
    value = shm.get(handle, release=True)
    assert regions() == []
    with pytest.raises(shm.RegionGoneError):
        shm.get(handle)
    del handle
    assert int(value.sum()) == sum(range(1000))


def test_get_is_untrusted_by_default():
    handle = shm.put(ValueError("needs the pickle fallback"))
    with pytest.raises(serreg.UntrustedClassIDError):
        shm.get(handle)
    assert str(shm.get(handle, trusted=True, release=True)) == "needs the pickle fallback"


def test_limits_and_keys_hold_for_regions():
    handle = shm.put(np.zeros(1 << 20, dtype=np.uint8))
    with pytest.raises(serreg.LimitExceededError):
        shm.get(handle, limits=serreg.Limits(max_frame_size=4096))
    with pytest.raises(serreg.SignatureError):
        shm.get(handle, key=b"0123456789abcdef0123456789abcdef")
    handle.release()
    key = b"k" * 32
    signed = shm.put(np.arange(10), key=key)
    np.testing.assert_array_equal(shm.get(signed, key=key, release=True), np.arange(10))


def test_a_region_is_written_read_only():
    handle = shm.put([1, 2, 3])
    mode = os.stat(os.path.join(shm.directory(), handle.name)).st_mode & 0o777
    assert mode == 0o400
    handle.release()


@pytest.mark.parametrize("new_size", [0, 31, 100, None])
def test_a_shortened_or_grown_region_is_an_error_not_a_crash(new_size):
    handle = shm.put(np.arange(100_000, dtype=np.int64))
    path = os.path.join(shm.directory(), handle.name)
    os.chmod(path, 0o600)  # what a careless process would have to do first
    if new_size is None:
        with open(path, "ab") as f:
            f.write(b"\0" * 4096)
    else:
        os.truncate(path, new_size)
    child = run_child("""
        import pickle, sys, serreg
        try:
            serreg.shm.get(pickle.loads(bytes.fromhex(sys.argv[1])))
        except serreg.DeserializationError as error:
            print(type(error).__name__, "|", error)
    """, pickle.dumps(handle).hex())
    assert child.returncode == 0, f"the reader died (exit {child.returncode}): {child.stderr}"
    assert child.stdout.startswith("DeserializationError |") and "shortened, grew or replaced" in child.stdout


def test_a_killed_writer_leaks_nothing_after_the_next_open():
    writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import pickle, sys, time, numpy as np, serreg
        handle = serreg.shm.put(np.ones(1 << 20))
        print(pickle.dumps(handle).hex(), flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        handle = pickle.loads(bytes.fromhex(writer.stdout.readline().strip()))
        assert regions() == [handle.name]
        age(handle.name)
        shm.cleanup()
        assert regions() == [handle.name], "a live writer's region is kept, however old"
        os.utime(os.path.join(shm.directory(), handle.name))  # written just now
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert regions() == [handle.name], "within the grace period a handle on its way is still readable"
    np.testing.assert_array_equal(shm.get(handle), np.ones(1 << 20))
    age(handle.name)
    shm.put(0).release()  # the next open cleans up
    assert regions() == []


def test_a_region_mapped_by_a_live_reader_is_not_removed_and_leaks_nothing_after_it_dies():
    writer = run_child("""
        import pickle, numpy as np, serreg
        print(pickle.dumps(serreg.shm.put(np.arange(1 << 18))).hex())
    """)
    handle = pickle.loads(bytes.fromhex(writer.stdout.strip()))  # its writer has exited
    reader = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import pickle, sys, time, serreg
        value = serreg.shm.get(pickle.loads(bytes.fromhex(sys.argv[1])))
        print(int(value.sum()), flush=True)
        time.sleep(600)
    """), pickle.dumps(handle).hex()], stdout=subprocess.PIPE, text=True)
    try:
        assert int(reader.stdout.readline()) == sum(range(1 << 18))
        age(handle.name)
        assert shm.cleanup() == 0 and regions() == [handle.name], "a mapped region is in use"
    finally:
        reader.send_signal(signal.SIGKILL)
        reader.wait()
    age(handle.name)
    shm.get(shm.put(1), release=True)
    assert regions() == []


def test_a_writer_killed_mid_write_leaves_nothing_behind():
    folder = shm.directory()
    stale = os.path.join(folder, ".tmp-killed-writer")
    with open(stale, "wb") as f:
        f.write(b"SREG half a frame")
    past = time.time() - 3600
    os.utime(stale, (past, past))
    shm.put(1).release()
    assert os.listdir(folder) == []


def double_it(array):
    return Shared(array * 2)


def table_sums(table):
    return Shared({name: int(column.to_numpy().sum()) for name, column in zip(table.column_names, table.columns)})


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_shared_values_cross_a_process_pool_both_ways(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    array = np.arange(1 << 20, dtype=np.int64)
    table = pa.table({"a": np.arange(1000), "b": np.ones(1000, dtype=np.int8)})
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(method)) as pool:
        doubled = pool.submit(double_it, Shared(array)).result()
        sums = pool.submit(table_sums, Shared(table)).result()
    np.testing.assert_array_equal(doubled, array * 2)
    assert not doubled.flags.writeable
    assert sums == {"a": sum(range(1000)), "b": 1000}
    assert regions() == []


def test_shared_through_a_queue():
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    queue.put(Shared(np.arange(10)))
    np.testing.assert_array_equal(queue.get(timeout=60), np.arange(10))
    assert regions() == []


def test_an_array_built_in_a_region_is_handed_over_without_a_copy():
    array, handle = shm.empty((512, 256), "<u2")
    assert array.flags.writeable and array.ctypes.data % 64 == 0
    array[:] = np.arange(512 * 256, dtype=np.uint16).reshape(512, 256)
    assert os.stat(os.path.join(shm.directory(), handle.name)).st_mode & 0o777 == 0o400
    child = run_child("""
        import pickle, sys, numpy as np, serreg
        a = serreg.shm.get(pickle.loads(bytes.fromhex(sys.argv[1])), release=True)
        assert a.dtype == np.dtype("<u2") and a.shape == (512, 256) and not a.flags.writeable
        assert a.tobytes() == np.arange(512 * 256, dtype=np.uint16).tobytes()
        print("ok")
    """, pickle.dumps(handle).hex())
    assert child.returncode == 0 and child.stdout.strip() == "ok", child.stderr
    assert regions() == []
    array[0, 0] = 7  # the writer's view outlives the name
    nothing, empty_handle = shm.empty((0,), "f8")
    assert nothing.shape == (0,) and shm.get(empty_handle, release=True).shape == (0,)
