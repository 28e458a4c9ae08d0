"""serreg's serializers in Ray: tasks and the object store, on a real local Ray."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install ray)")
pa = pytest.importorskip("pyarrow")

import ray.cloudpickle  # noqa: E402

from serreg.integrations import ray as serreg_ray  # noqa: E402

from cluster_types import Pixels, brighten, describe  # noqa: E402

TIMEOUT = 60  # seconds for any one ray.get


@pytest.fixture(scope="module")
def local_ray():
    tests_dir = str(Path(__file__).resolve().parent)
    path = os.pathsep.join(p for p in (tests_dir, os.environ.get("PYTHONPATH")) if p)
    ray.init(
        num_cpus=1,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"worker_process_setup_hook": "cluster_types.ray_setup", "env_vars": {"PYTHONPATH": path}},
    )
    try:
        serreg_ray.install()
        yield
    finally:
        serreg_ray.uninstall()
        ray.shutdown()


def _table(rows: int) -> pa.Table:
    return pa.table({"id": pa.array(np.arange(rows)), "name": pa.array([f"r{i}" for i in range(rows)])})


@ray.remote
def _brighten(pixels):
    return brighten(pixels)


@ray.remote
def _describe(pixels):
    return describe(pixels)


@ray.remote
def _every_other_row(table):
    return table.take(pa.array(np.arange(0, table.num_rows, 2)))


@ray.remote
def _worker_state():
    from serreg.integrations import ray as worker_serreg_ray

    return os.getpid(), sorted(cls.__qualname__ for cls in worker_serreg_ray.installed_classes())


def test_install_registers_plugin_and_user_classes_but_not_standard_types(local_ray):
    installed = serreg_ray.installed_classes()
    assert {Pixels, pa.Table, pa.RecordBatch, np.ndarray} <= installed
    assert not installed & {dict, list, int, str, bytes, tuple}


def test_buffers_stay_out_of_band_in_rays_pickling(local_ray):
    pixels = Pixels("big", np.arange(1_000_000, dtype=np.float64))
    buffers = []
    in_band = ray.cloudpickle.dumps(pixels, protocol=5, buffer_callback=buffers.append)
    assert len(in_band) < 1000
    assert [b.raw().nbytes for b in buffers] == [8_000_000]
    assert np.shares_memory(np.asarray(buffers[0].raw()), pixels.data)
    back = ray.cloudpickle.loads(in_band, buffers=buffers)
    assert np.array_equal(back.data, pixels.data)


def test_workers_ran_the_setup_hook(local_ray):
    pid, classes = ray.get(_worker_state.remote(), timeout=TIMEOUT)
    assert pid != os.getpid()
    assert "Pixels" in classes and "Table" in classes


def test_task_receives_and_returns_a_registered_class(local_ray):
    # Pixels cannot be pickled: this passes only if serreg carries it both ways.
    pixels = Pixels("frame-1", np.arange(12, dtype=np.uint8).reshape(3, 4))
    result = ray.get(_brighten.remote(pixels), timeout=TIMEOUT)
    assert isinstance(result, Pixels)
    assert result.name == "frame-1+"
    assert np.array_equal(result.data, pixels.data + 1)


def test_object_store_values_are_views_not_copies(local_ray):
    pixels = Pixels("stored", np.ones((500, 500), dtype=np.int64))
    ref = ray.put(pixels)
    name, shape, total, is_view = ray.get(_describe.remote(ref), timeout=TIMEOUT)
    assert (name, shape, total, is_view) == ("stored", (500, 500), 250_000, True)
    back = ray.get(ref, timeout=TIMEOUT)
    assert np.array_equal(back.data, pixels.data)
    assert not back.data.flags.writeable  # a read-only view of the object store, as Ray gives numpy arrays


def test_task_receives_and_returns_an_arrow_table(local_ray):
    table = _table(20_000)
    result = ray.get(_every_other_row.remote(table), timeout=TIMEOUT)
    assert isinstance(result, pa.Table)
    assert result.equals(table.take(pa.array(np.arange(0, 20_000, 2))))
    stored = ray.get(ray.put(table), timeout=TIMEOUT)
    assert stored.equals(table)


@ray.remote
def _resolve_all(refs):
    return [ray.get(ref) for ref in refs]


def test_values_serreg_declines_are_pickled_by_ray_as_usual(local_ray):
    # An object-dtype ndarray is not taken by serreg's ndarray serializer; Ray must
    # still track the ObjectRefs inside it (through serreg's fallback it would hang).
    refs = np.empty(2, dtype=object)
    refs[0], refs[1] = ray.put("a"), ray.put(Pixels("inside", np.arange(3)))
    first, second = ray.get(_resolve_all.remote(refs), timeout=TIMEOUT)
    assert first == "a" and isinstance(second, Pixels) and second.data.tolist() == [0, 1, 2]
    words = np.array(["x", None, 3], dtype=object)
    assert ray.get(ray.put(words), timeout=TIMEOUT).tolist() == ["x", None, 3]
