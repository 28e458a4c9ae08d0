"""The "serreg" Dask serialization family, alone and on a LocalCluster with worker processes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed", reason="dask distributed is not installed (pip install 'dask[distributed]')")
pa = pytest.importorskip("pyarrow")

from distributed import Client, LocalCluster  # noqa: E402
from distributed.protocol import deserialize, dumps, loads, serialize, to_serialize  # noqa: E402

from serreg.integrations.dask import FAMILY, SERIALIZERS, SerregPlugin, serreg_dumps, serreg_loads  # noqa: E402

from cluster_types import Pixels, brighten, dask_families, describe  # noqa: E402

TIMEOUT = 60  # seconds for any one cluster operation


def _table(rows: int = 1000) -> pa.Table:
    return pa.table({"id": pa.array(np.arange(rows)), "name": pa.array([f"r{i}" for i in range(rows)])})


# ----------------------------------------------------------------- the family, in one process


def test_out_of_band_buffers_are_frames_sharing_the_values_memory():
    array = np.arange(100_000, dtype=np.float64)
    header, frames = serreg_dumps(array)
    assert len(frames) == 2
    assert np.shares_memory(np.asarray(frames[1]), array)
    back = serreg_loads(header, frames)
    assert np.shares_memory(back, array)
    assert back.flags.writeable


def test_arrow_buffers_are_frames_without_copies():
    table = _table()
    header, frames = serreg_dumps(table)
    data = table.column("id").chunk(0).buffers()[1]
    assert any(f.nbytes == data.size and np.asarray(f).ctypes.data == data.address for f in frames[1:])
    assert serreg_loads(header, frames).equals(table)


def test_read_only_buffers_stay_read_only_and_writable_ones_writable():
    frozen = np.arange(10)
    frozen.flags.writeable = False
    header, frames = serreg_dumps({"frozen": frozen, "live": np.arange(5)})
    assert header["writeable"] == [False, True]
    # Received frames are often writable bytearrays and sometimes read-only bytes.
    received = [bytes(frames[0])] + [bytearray(frames[1]), bytes(frames[2])]
    back = serreg_loads(header, received)
    assert not back["frozen"].flags.writeable
    assert back["live"].flags.writeable
    assert back["live"].tolist() == list(range(5))


def test_values_without_a_serializer_are_left_to_the_next_family():
    class Unregistered:
        pass

    with pytest.raises(NotImplementedError):
        serreg_dumps(Unregistered())
    with pytest.raises(NotImplementedError):
        serreg_dumps(np.array([object()]))  # the ndarray serializer does not accept object arrays
    header, _ = serialize(np.array(["a", None], dtype=object), serializers=SERIALIZERS)
    assert header["serializer"] != FAMILY


def test_distributed_protocol_uses_the_family_and_keeps_buffers_as_frames():
    array = np.arange(50_000, dtype=np.int32)
    header, frames = serialize(array, serializers=SERIALIZERS)
    assert header["serializer"] == FAMILY
    assert deserialize(header, frames, deserializers=SERIALIZERS).tolist() == array.tolist()

    message = {"op": "test", "data": to_serialize({"array": array, "table": _table()})}
    wire = dumps(message, serializers=SERIALIZERS)
    assert any(np.shares_memory(np.asarray(f), array) for f in wire if isinstance(f, memoryview))
    back = loads(wire, deserializers=SERIALIZERS)
    assert back["op"] == "test"
    assert np.array_equal(back["data"]["array"], array)
    assert back["data"]["table"].equals(_table())


def test_a_corrupt_message_is_a_serreg_error():
    import serreg

    header, frames = serreg_dumps(np.arange(3))
    with pytest.raises(serreg.DeserializationError):
        serreg_loads(header, frames[:1])
    with pytest.raises(serreg.DeserializationError):
        serreg_loads(header, [b"\x00" * 4, frames[1]])


def test_plugin_takes_module_names_only():
    with pytest.raises(TypeError):
        SerregPlugin(Pixels)


# ----------------------------------------------------------------- a real cluster


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", worker_dashboard_address=":0"
    ) as cluster:
        with Client(cluster, timeout=TIMEOUT) as setup:
            setup.register_plugin(SerregPlugin("cluster_types"))
        yield cluster


@pytest.fixture
def client(cluster):
    with Client(cluster, serializers=SERIALIZERS, deserializers=SERIALIZERS, timeout=TIMEOUT) as client:
        yield client


@pytest.fixture
def serreg_only_client(cluster):
    """A client that can move data with nothing but serreg, so success proves serreg carried it."""
    with Client(cluster, serializers=[FAMILY], deserializers=[FAMILY], timeout=TIMEOUT) as client:
        yield client


def test_workers_run_in_separate_processes_with_the_family(client):
    import os

    pids = client.run(os.getpid)
    assert len(pids) == 2 and os.getpid() not in pids.values()
    assert client.run(dask_families) == {address: dask_families() for address in pids}


def test_scatter_and_gather_arrow_table_and_ndarrays(serreg_only_client):
    client = serreg_only_client
    table = _table(10_000)
    matrix = np.arange(200_000, dtype=np.float64).reshape(1000, 200)
    fortran = np.asfortranarray(np.arange(60, dtype=np.int16).reshape(6, 10))
    futures = client.scatter([table, matrix, fortran], hash=False, timeout=TIMEOUT)
    back_table, back_matrix, back_fortran = client.gather(futures)
    assert back_table.equals(table)
    assert np.array_equal(back_matrix, matrix) and back_matrix.dtype == matrix.dtype
    assert np.array_equal(back_fortran, fortran) and back_fortran.flags.f_contiguous
    # The workers really hold the values (not just echo bytes): compute on them there.
    rows = client.submit(lambda t: t.num_rows, futures[0]).result(timeout=TIMEOUT)
    total = client.submit(lambda m: float(m.sum()), futures[1]).result(timeout=TIMEOUT)
    assert rows == 10_000 and total == float(matrix.sum())


def test_task_receives_and_returns_a_registered_class(serreg_only_client):
    client = serreg_only_client
    pixels = Pixels("frame-1", np.arange(12, dtype=np.uint8).reshape(3, 4))
    [future] = client.scatter([pixels], hash=False, timeout=TIMEOUT)
    result = client.submit(brighten, future).result(timeout=TIMEOUT)
    assert isinstance(result, Pixels)
    assert result.name == "frame-1+"
    assert np.array_equal(result.data, pixels.data + 1)


def test_worker_to_worker_transfer_uses_serreg(client):
    first, second = sorted(client.scheduler_info()["workers"])
    pixels = Pixels("moved", np.ones((100, 100), dtype=np.int64))
    [future] = client.scatter([pixels], workers=[first], hash=False, timeout=TIMEOUT)
    # Pixels cannot be pickled: the second worker gets it only if serreg carries the transfer.
    received = client.submit(describe, future, workers=[second], allow_other_workers=False).result(timeout=TIMEOUT)
    assert received == ("moved", (100, 100), 10_000, True)


def test_preloading_the_module_enables_the_family_without_the_plugin():
    # As `dask worker --preload serreg.integrations.dask --preload cluster_types` would.
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0", worker_dashboard_address=":0",
        preload=["serreg.integrations.dask", "cluster_types"],
    ) as cluster, Client(cluster, serializers=[FAMILY], deserializers=[FAMILY], timeout=TIMEOUT) as client:
        [future] = client.scatter([Pixels("preloaded", np.arange(3))], hash=False, timeout=TIMEOUT)
        result = client.submit(brighten, future).result(timeout=TIMEOUT)
        assert (result.name, result.data.tolist()) == ("preloaded+", [1, 2, 3])


# ----------------------------------------------------------------- a scheduler and a worker started on their own


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def separate_cluster(tmp_path_factory):
    """`dask scheduler` and `dask worker` as separate commands, neither told about serreg,
    as a user starts them by hand; the tests' own modules are on their path, as a user's are."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    logs = tmp_path_factory.mktemp("dask-logs")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]))
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    started = []
    try:
        scheduler_log = open(logs / "scheduler.log", "w")
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", port,
             "--dashboard-address", ":0"],
            env=env, stdout=scheduler_log, stderr=subprocess.STDOUT,
        ))
        worker_log = open(logs / "worker.log", "w")
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard"],
            env=env, stdout=worker_log, stderr=subprocess.STDOUT,
        ))
        with Client(address, timeout=TIMEOUT) as setup:
            setup.wait_for_workers(1, timeout=TIMEOUT)
        yield address, logs
    finally:
        for process in reversed(started):
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def installed():
    from serreg.integrations.dask import install, uninstall

    classes = install()
    yield classes
    uninstall()


def test_install_makes_pickle_carry_registered_classes_through_serreg(installed):
    import pickle

    assert Pixels in installed
    pixels = Pixels("pickled", np.arange(100_000, dtype=np.int64))
    buffers = []
    data = pickle.dumps(pixels, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(data) < 1000  # the pixels stayed out-of-band
    back = pickle.loads(data, buffers=buffers)
    assert back.name == "pickled" and np.shares_memory(back.data, pixels.data)
    # A value its serializer declines is pickled as it would be without serreg.
    objects = np.array([1, "a"], dtype=object)
    assert pickle.loads(pickle.dumps(objects)).tolist() == [1, "a"]


def test_uninstall_gives_back_the_reductions_it_replaced(installed):
    import copyreg
    import pickle

    from serreg.integrations.dask import installed_classes, uninstall

    assert Pixels in installed_classes()
    uninstall()
    assert Pixels not in copyreg.dispatch_table and not installed_classes()
    with pytest.raises(TypeError, match="must travel through serreg"):
        pickle.dumps(Pixels("x", np.arange(2)))


def test_separately_started_scheduler_runs_tasks_with_inline_registered_values(separate_cluster, installed):
    address, logs = separate_cluster
    with Client(address, serializers=SERIALIZERS, deserializers=SERIALIZERS, timeout=TIMEOUT) as client:
        client.register_plugin(SerregPlugin("cluster_types"))
        pixels = Pixels("inline", np.arange(12, dtype=np.uint8).reshape(3, 4))
        # Pixels cannot be pickled: this passes only if serreg carries it inside the task graph.
        name, shape, total, _ = client.submit(describe, pixels, pure=False).result(timeout=TIMEOUT)
        assert (name, shape, total) == ("inline", (3, 4), 66)
        [future] = client.scatter([pixels], hash=False, timeout=TIMEOUT)
        assert client.submit(brighten, future).result(timeout=TIMEOUT).data.tolist() == (pixels.data + 1).tolist()
        assert client.gather(client.submit(brighten, future), direct=False).name == "inline+"
    scheduler_log = (logs / "scheduler.log").read_text()
    assert "KeyError" not in scheduler_log and "Traceback" not in scheduler_log, scheduler_log[-3000:]
