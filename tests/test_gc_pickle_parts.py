"""A garbage collection never crashes over the buffers the cluster integrations hand another pickler.

Ray (``serreg.integrations.ray``) and Dask task graphs (``serreg.integrations.dask.install``)
pickle a value as serreg's in-band bytes plus its out-of-band buffers wrapped in
``pickle.PickleBuffer`` (``serreg.integrations.common.to_pickle_parts``). A PickleBuffer
over a serializer's memoryview holds a buffer export of it; kept in a garbage cycle with
that memoryview (by the pickler's buffer list, a kept traceback ...), the collector of
CPython 3.11 could clear the memoryview first and crash the process when releasing the
export. Each scenario runs in a child process, so a crash is a failed test, with both
backends; the other tests check what is handed over: whose memory, and the same bytes.
"""

from __future__ import annotations

import gc
import pickle
import textwrap

import numpy as np
import pyarrow as pa
import pytest
from gc_child import assert_collects

import serreg
from serreg.integrations.common import from_pickle_parts, to_pickle_parts

_PRELUDE = """
import gc, pickle, threading
import numpy as np
import pyarrow as pa
import serreg
from serreg.integrations.common import from_pickle_parts, to_pickle_parts

TABLE = pa.table({"x": list(range(1000)), "s": ["a", ""] * 500})
DATA = bytes(range(256)) * 40
VALUES = [TABLE, np.arange(1000.0), np.asfortranarray(np.arange(12).reshape(3, 4)),
          memoryview(DATA)[10:5000], memoryview(bytearray(DATA)).toreadonly()]
"""

_SCENARIOS = {
    "pickle_parts_in_a_cycle": """
        registry = serreg.Registry()
        for _ in range(20):
            for value in VALUES:
                box = [to_pickle_parts(registry, value)]
                box.append(box)
                del box
        gc.collect()
        """,
    "buffers_a_pickler_kept_in_a_cycle": """
        registry = serreg.Registry()
        for _ in range(20):
            for value in VALUES:
                buffers = []
                data = pickle.dumps(to_pickle_parts(registry, value), protocol=5, buffer_callback=buffers.append)
                in_band, *views = pickle.loads(data, buffers=buffers)
                back = from_pickle_parts(registry, in_band, views)
                assert type(back) is type(value)
                buffers.append(buffers)
                del buffers, views, back
        gc.collect()
        """,
    "a_pickling_error_kept_with_its_traceback": """
        registry = serreg.Registry()

        def fail(value):
            buffers = []
            try:
                pickle.dumps([to_pickle_parts(registry, value), threading.Lock()], protocol=5,
                             buffer_callback=buffers.append)
            except TypeError as error:
                saved = error  # the traceback holds this frame, which holds the error and the buffers
            assert saved is not None and buffers

        for _ in range(20):
            for value in VALUES:
                fail(value)
        gc.collect()
        """,
    "without_numpy_buffers_are_copied_or_shared": """
        import sys
        registry = serreg.Registry()
        sys.modules["numpy"] = None  # what pickle_buffer sees when numpy is not installed
        for _ in range(20):
            for value in (memoryview(DATA)[10:5000], memoryview(bytearray(DATA)).toreadonly(), DATA):
                box = [to_pickle_parts(registry, value)]
                box.append(box)
                del box
        gc.collect()
        """,
    "ray_pickling_a_task_fails_and_its_error_is_kept": """
        import ray.cloudpickle

        registry = serreg.Registry()

        def submit(value):
            try:
                # Ray's pickler, as Ray's hook hands it a value serreg serializes, failing on a later argument
                ray.cloudpickle.dumps([to_pickle_parts(registry, value), threading.Lock()], protocol=5)
            except TypeError as error:
                saved = error  # the traceback holds the pickler, whose memo holds the PickleBuffers
            assert saved is not None

        for _ in range(40):
            for value in VALUES[:3]:
                submit(value)
        gc.collect()
        """,
    "dask_pickling_a_task_graph_fails_and_its_error_is_kept": """
        from serreg.integrations import dask as serreg_dask

        def submit(graph):
            buffers = []
            try:
                pickle.dumps(graph, protocol=5, buffer_callback=buffers.append)
            except TypeError as error:
                saved = error  # the traceback holds this frame, which holds the error and the buffers
            assert saved is not None and buffers

        serreg_dask.install()
        for _ in range(40):
            submit({"task": VALUES[:3], "lock": threading.Lock()})
        buffers = []
        back = pickle.loads(pickle.dumps({"task": VALUES[:3]}, protocol=5, buffer_callback=buffers.append), buffers=buffers)
        assert back["task"][0].equals(TABLE) and np.array_equal(back["task"][1], VALUES[1])
        serreg_dask.uninstall()
        gc.collect()
        """,
}

_NEEDS = {"ray_pickling_a_task_fails_and_its_error_is_kept": "ray",
          "dask_pickling_a_task_graph_fails_and_its_error_is_kept": "distributed"}


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("scenario", sorted(_SCENARIOS))
def test_collecting_kept_pickle_parts_does_not_crash(scenario: str, pure: bool) -> None:
    if scenario in _NEEDS:
        pytest.importorskip(_NEEDS[scenario])
    code = _PRELUDE + textwrap.dedent(_SCENARIOS[scenario]) + "\nprint('collected')\n"
    assert_collects(scenario, code, pure)


_DATA = bytes(range(256)) * 40


def _parts(value: object) -> tuple[bytes, list[pickle.PickleBuffer]]:
    in_band, *buffers = to_pickle_parts(serreg.Registry(), value)
    return in_band, buffers


def test_no_pickle_buffer_wraps_a_memoryview() -> None:
    # What the crash needed: a PickleBuffer whose exporter is a memoryview (a buffer export of it).
    values = [pa.table({"x": list(range(100)), "s": ["a"] * 100}), np.arange(10.0),
              np.asfortranarray(np.arange(12).reshape(3, 4)), memoryview(_DATA)[10:5000],
              memoryview(bytearray(_DATA)).toreadonly(), pickle.PickleBuffer(memoryview(_DATA)[3:])]
    for value in values:
        _, buffers = _parts(value)
        assert buffers, value
        exporters = [type(memoryview(b).obj).__name__ for b in buffers]
        assert "memoryview" not in exporters, (value, exporters)


def test_whole_buffers_and_c_order_views_are_not_copied() -> None:
    array = np.arange(1000.0)
    _, buffers = _parts(array)
    assert np.shares_memory(np.asarray(buffers[0].raw()), array)
    fortran = np.asfortranarray(np.arange(12).reshape(3, 4))
    _, buffers = _parts(fortran)
    assert np.shares_memory(np.asarray(buffers[0].raw()), fortran)
    table = pa.table({"x": np.arange(1000)})
    _, buffers = _parts(table)
    column = np.asarray(table.column("x").chunk(0).buffers()[1])
    assert any(np.shares_memory(np.asarray(b.raw()), column) for b in buffers)
    source = np.frombuffer(bytearray(_DATA), dtype=np.uint8)
    _, buffers = _parts(memoryview(source)[10:5000])  # a part of its exporter: a uint8 ndarray over the view
    assert np.shares_memory(np.asarray(buffers[0].raw()), source)


def test_the_same_bytes_and_writability_come_back() -> None:
    registry = serreg.Registry()
    values = [np.arange(1000.0), np.asfortranarray(np.arange(12).reshape(3, 4)), memoryview(_DATA)[10:5000],
              memoryview(bytearray(_DATA)).toreadonly(), bytearray(_DATA)]
    for value in values:
        parts = to_pickle_parts(registry, value)
        before = [memoryview(b) for b in registry.serialize(value).out_of_band_buffers]
        assert [bytes(b.raw()) for b in parts[1:]] == [b.tobytes("A") for b in before]
        assert [b.raw().readonly for b in parts[1:]] == [b.readonly for b in before]
        buffers: list[pickle.PickleBuffer] = []
        in_band, *views = pickle.loads(pickle.dumps(parts, protocol=5, buffer_callback=buffers.append), buffers=buffers)
        back = from_pickle_parts(registry, in_band, views)
        if isinstance(value, np.ndarray):
            assert np.array_equal(back, value)
        else:
            assert bytes(back) == bytes(value)
    gc.collect()


def test_a_view_that_is_not_contiguous_is_refused_as_pickle_refuses_it() -> None:
    from serreg.standard.pickle_views import pickle_buffer

    with pytest.raises(BufferError):
        pickle_buffer(memoryview(_DATA)[::2])
