"""A garbage collection never crashes over a SerializationResult a user built with PickleBuffers.

A ``pickle.PickleBuffer`` over a memoryview (and its ``raw()``) holds a buffer
export of that memoryview. A result holding one, kept in a garbage cycle with
the memoryview, could crash CPython 3.11's collector (it clears the memoryview
first, then the release of the export crashes). A result keeps, in their place,
memoryviews sharing the exported view (``serreg.owned_views``): the same
memory, shape, format and writability. Each scenario runs in a child process,
so a crash is a failed test, with both backends; the other tests check what is
kept: whose memory, the same bytes, the same layout.
"""

from __future__ import annotations

import pickle
import textwrap
from typing import Any

import numpy as np
import pytest
from gc_child import assert_collects

import serreg
from serreg import SerializationResult

_PRELUDE = """
import gc, io, pickle
import numpy as np
import serreg
from serreg import SerializationResult

DATA = bytes(range(256)) * 40


def exports():
    # PickleBuffers (and raw() views) over memoryviews, each the only holder of its memoryview
    grid = np.arange(24.0).reshape(4, 6)
    return [pickle.PickleBuffer(memoryview(bytearray(DATA))[10:5000]), pickle.PickleBuffer(memoryview(DATA)),
            pickle.PickleBuffer(memoryview(grid)), pickle.PickleBuffer(memoryview(np.asfortranarray(grid))),
            pickle.PickleBuffer(memoryview(bytearray(DATA))).raw(), pickle.PickleBuffer(memoryview(grid)).raw(),
            memoryview(pickle.PickleBuffer(memoryview(DATA)))[5:100]]


class Blob:
    def __init__(self, data):
        self.data = data


class BlobSerializer(serreg.Serializer):
    def serialize(self, blob):
        result = SerializationResult(b"")
        result.out_of_band_buffers.append(pickle.PickleBuffer(memoryview(bytearray(blob.data))))  # added afterwards
        return result

    def deserialize(self, in_band, oob):
        return Blob(next(oob))
"""

_SCENARIOS = {
    "results_made_with_pickle_buffers_in_a_cycle": """
        for _ in range(20):
            box = [SerializationResult(b"x", exports())]
            box.append(box)
            del box
        gc.collect()
        """,
    "buffers_set_on_a_result_in_a_cycle": """
        for _ in range(20):
            result = SerializationResult(b"x")
            result.out_of_band_buffers = exports()
            box = [result, result.nbytes, repr(result)]
            box.append(box)
            del box, result
        gc.collect()
        """,
    "results_read_and_kept_in_a_cycle": """
        for _ in range(20):
            result = SerializationResult(b"x", [b for i, b in enumerate(exports()) if i != 3])  # frames take C order only
            frame, out = result.to_bytes(), io.BytesIO()
            result.write_to(out)
            assert out.getvalue() == frame
            box = [result, frame]
            box.append(box)
            del box, result
        gc.collect()
        """,
    "a_serializer_adding_pickle_buffers_to_its_result": """
        registry = serreg.Registry()
        registry.register_serializer("test.Blob", Blob, BlobSerializer())
        for _ in range(20):
            for value in (Blob(DATA[:300]), [Blob(DATA[:100]), {"b": Blob(DATA[:50])}]):
                result = registry.serialize(value)
                back = registry.deserialize(result)
                again = registry.deserialize(result.to_bytes())
                box = [result, back, again]
                box.append(box)
                del box, result, back, again
        gc.collect()
        """,
    "a_refusal_kept_with_a_result_of_a_reversed_part_of_an_export": """
        def fail():
            reversed_part = memoryview(pickle.PickleBuffer(memoryview(bytearray(DATA))))[::-1]
            result = SerializationResult(b"x", [reversed_part])
            del reversed_part
            try:
                result.to_bytes()  # refused: not contiguous
            except serreg.SerregError as error:
                saved = error  # the traceback holds this frame, which holds the error and the result
            assert saved is not None

        for _ in range(20):
            fail()
        gc.collect()
        """,
    "a_pickling_error_kept_with_a_result_of_pickle_buffers": """
        import threading

        def fail():
            result = SerializationResult(b"x", exports())
            try:
                pickle.dumps([result.out_of_band_buffers, threading.Lock()], protocol=5, buffer_callback=lambda b: None)
            except TypeError as error:
                saved = error  # the traceback holds this frame, which holds the error and the result
            assert saved is not None

        for _ in range(20):
            fail()
        gc.collect()
        """,
}


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("scenario", sorted(_SCENARIOS))
def test_collecting_user_results_does_not_crash(scenario: str, pure: bool) -> None:
    code = _PRELUDE + textwrap.dedent(_SCENARIOS[scenario]) + "\nprint('collected')\n"
    assert_collects(scenario, code, pure)


_DATA = bytes(range(256)) * 40


def test_kept_buffers_share_the_memory_and_layout_and_export_no_memoryview() -> None:
    grid = np.arange(24.0).reshape(4, 6)
    fortran = np.asfortranarray(grid)
    writable = bytearray(_DATA)
    given = [pickle.PickleBuffer(memoryview(writable)[10:5000]), pickle.PickleBuffer(memoryview(_DATA)),
             pickle.PickleBuffer(memoryview(grid)), pickle.PickleBuffer(memoryview(fortran)),
             pickle.PickleBuffer(memoryview(grid)).raw(), pickle.PickleBuffer(memoryview(writable)).raw().toreadonly()]
    expected = [memoryview(b) for b in given]
    buffers = list(given)
    result = SerializationResult(b"x", buffers)
    assert result.out_of_band_buffers is buffers  # the caller's list, its items replaced
    for before, kept in zip(expected, buffers):
        assert type(kept) is memoryview and type(kept.obj) is not memoryview, kept.obj
        assert (kept.format, kept.shape, kept.strides, kept.readonly) == (before.format, before.shape, before.strides, before.readonly)
        assert kept.tobytes("A") == before.tobytes("A")
    assert np.shares_memory(np.asarray(buffers[0]), np.frombuffer(writable, dtype=np.uint8))
    assert np.shares_memory(np.asarray(buffers[2]), grid) and np.shares_memory(np.asarray(buffers[4]), grid)
    assert np.shares_memory(np.asarray(buffers[3]), fortran)


def test_a_part_of_an_export_is_copied_with_its_bytes_and_writability() -> None:
    writable = bytearray(_DATA)
    whole = memoryview(pickle.PickleBuffer(memoryview(writable)))
    buffers = [whole[5:100]]
    SerializationResult(b"", buffers)
    assert type(buffers[0].obj) is not memoryview and buffers[0].tobytes() == _DATA[5:100]
    assert not buffers[0].readonly


@pytest.mark.parametrize("make", [
    lambda: memoryview(pickle.PickleBuffer(memoryview(bytearray(_DATA))))[::-1],
    lambda: memoryview(pickle.PickleBuffer(memoryview(_DATA)))[3:200:7],
    lambda: memoryview(pickle.PickleBuffer(memoryview(bytearray(_DATA)))).cast("i")[::-2],
    lambda: memoryview(pickle.PickleBuffer(memoryview(np.arange(24.0).reshape(4, 6)))).cast("B").cast("d", [4, 6])[::-1],
    lambda: memoryview(pickle.PickleBuffer(memoryview(np.arange(24, dtype=">i4").reshape(4, 6))))[::2],
], ids=["reversed", "stepped-readonly", "cast-stepped", "2d-reversed", "struct-format-stepped"])
def test_a_part_of_an_export_that_is_not_contiguous_is_copied_and_still_refused_where_a_frame_is_written(make: Any) -> None:
    # Never read as its bytes in another order (as a cast of the whole would), never holding the export (a
    # garbage cycle would crash): a copy read through a view that is not contiguous, and a frame refuses it.
    view = make()
    assert not view.contiguous and type(view.obj) is memoryview
    result = SerializationResult(b"", [view])
    (kept,) = result.out_of_band_buffers
    assert type(kept) is memoryview and type(kept.obj) is not memoryview, kept.obj
    assert not kept.contiguous and kept.readonly == view.readonly
    assert kept.tobytes() == view.tobytes() and kept.nbytes == view.nbytes
    if view.format[0] not in "<>!=":  # a format cast cannot name is read as rows of bytes
        assert (kept.format, kept.shape) == (view.format, view.shape) and kept.tolist() == view.tolist()
    with pytest.raises(serreg.SerregError, match="out-of-band buffer 0 is not contiguous"):
        result.to_bytes()


def test_a_tuple_of_buffers_is_kept_as_a_list_of_shared_views() -> None:
    data = bytearray(_DATA)
    plain = (memoryview(data),)
    assert SerializationResult(b"", plain).out_of_band_buffers is plain  # nothing to replace: kept as given
    result = SerializationResult(b"", (pickle.PickleBuffer(memoryview(data)),))
    (kept,) = result.out_of_band_buffers
    assert type(kept) is memoryview and type(kept.obj) is not memoryview
    assert result.to_bytes() == SerializationResult(b"", [memoryview(data)]).to_bytes()


def test_buffers_set_later_and_added_by_a_serializer_are_kept_as_shared_views() -> None:
    result = SerializationResult(b"")
    data = bytearray(_DATA)
    result.out_of_band_buffers = [pickle.PickleBuffer(memoryview(data))]
    assert type(result.out_of_band_buffers[0]) is memoryview
    assert np.shares_memory(np.asarray(result.out_of_band_buffers[0]), np.frombuffer(data, dtype=np.uint8))

    class Blob:
        def __init__(self, data: object) -> None:
            self.data = data

    class BlobSerializer(serreg.Serializer):
        def serialize(self, blob: Blob) -> SerializationResult:
            made = SerializationResult(b"")
            made.out_of_band_buffers.append(pickle.PickleBuffer(memoryview(blob.data)))
            return made

        def deserialize(self, in_band: memoryview, oob: serreg.OutOfBandBuffers) -> Blob:
            return Blob(next(oob))

    registry = serreg.Registry()
    registry.register_serializer("test.Blob", Blob, BlobSerializer())
    blob = Blob(bytearray(_DATA[:300]))
    for value in (blob, [blob, {"b": blob}]):
        written = registry.serialize(value)
        assert all(type(b) is memoryview and type(b.obj) is not memoryview for b in written.out_of_band_buffers)
        back = registry.deserialize(written)
        first = back if isinstance(back, Blob) else back[0]
        assert np.shares_memory(np.asarray(first.data), np.frombuffer(blob.data, dtype=np.uint8))
        again = registry.deserialize(written.to_bytes())
        assert bytes((again if isinstance(again, Blob) else again[0]).data) == _DATA[:300]
