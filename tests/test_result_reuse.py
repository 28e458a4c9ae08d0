"""Results of the one-call path, whatever was done with the results made before them: every new
result is a separate object with its own empty ``out_of_band_buffers`` (the codec collects buffers in
a list it keeps while a call meets none, and a result without buffers makes its list when it is first
read); and the struct table a call opens at its first struct (none when it meets none) leaves the next
call's frame as a fresh registry's, and as the pure codec writes it."""

from __future__ import annotations

import dataclasses
import gc
from typing import Any

from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec


def test_a_new_result_has_its_own_empty_buffer_list() -> None:
    first = serreg.serialize({"a": 1})
    buffers = first.out_of_band_buffers
    del first
    second = serreg.serialize({"a": 1})
    assert second.out_of_band_buffers == []
    assert second.out_of_band_buffers is not buffers  # still referred to: not handed out again
    buffers.append(memoryview(b"x"))
    assert second.out_of_band_buffers == []
    assert serreg.deserialize(second) == {"a": 1}


def test_a_buffer_list_that_was_filled_is_not_handed_out() -> None:
    result = serreg.serialize([1, 2])
    result.out_of_band_buffers.append(memoryview(b"abc"))
    del result
    for _ in range(20):
        assert serreg.serialize([1, 2]).out_of_band_buffers == []


def test_many_results_alive_at_once_stay_apart() -> None:
    results = [serreg.serialize({"k": i}) for i in range(50)]
    del results[::2]
    more = [serreg.serialize({"k": -i, "s": "x" * i}) for i in range(50)]
    assert len({id(r) for r in results + more}) == len(results) + len(more)
    assert len({id(r.out_of_band_buffers) for r in results + more}) == len(results) + len(more)
    assert [serreg.deserialize(r) for r in results] == [{"k": i} for i in range(1, 50, 2)]
    assert [serreg.deserialize(r) for r in more] == [{"k": -i, "s": "x" * i} for i in range(50)]


def test_a_result_in_a_cycle_is_collected_and_the_next_ones_work() -> None:
    result = serreg.serialize([1])
    result.out_of_band_buffers.append(result)  # type: ignore[arg-type]  # a cycle through the list
    del result
    gc.collect()
    fresh = [serreg.serialize([i]) for i in range(20)]
    assert [serreg.deserialize(r) for r in fresh] == [[i] for i in range(20)]
    assert all(r.out_of_band_buffers == [] for r in fresh)


@dataclasses.dataclass
class _Point:
    x: int
    y: int


def _struct_registry(codec: Any = None) -> serreg.Registry:
    if codec is None:
        registry = serreg.Registry()
    else:
        with mock.patch.object(serreg.registry, "MsgpackCodec", codec):
            registry = serreg.Registry()
    registry.register_struct(_Point, "tests.reuse.Point")
    return registry


def test_the_struct_tables_of_calls_in_turn_stay_apart() -> None:
    values: list[Any] = [[_Point(1, 2)], {"a": 1}, {"p": _Point(3, 4), "q": [_Point(5, 6)]}, [1, 2], _Point(7, 8)]
    registry = _struct_registry()
    frames = [registry.serialize(value).to_bytes() for value in values * 3]
    assert frames == [_struct_registry().serialize(value).to_bytes() for value in values * 3]
    assert [registry.deserialize(frame) for frame in frames] == values * 3


@pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")
def test_a_struct_met_late_opens_the_table_there_and_writes_what_the_pure_codec_writes() -> None:
    # The one-call path opens its struct table at the first struct it meets: after plain keys, after
    # plain list items, as a list of instances at the end, deep inside; and calls without any between.
    values: list[Any] = [
        {"a": 1, "b": [1, 2, 3], "z": _Point(1, 2)},
        [1, "x", 2.5, None, [_Point(3, 4)]],
        {"plain": list(range(5)), "points": [_Point(i, -i) for i in range(4)]},
        {"k": 1},
        [[[{"deep": _Point(5, 6)}]]],
        [1, 2, (3, _Point(7, 8))],
    ]
    registry, pure = _struct_registry(), _struct_registry(PureMsgpackCodec)
    refuse = mock.Mock(side_effect=AssertionError("the pure codec was asked"))
    with mock.patch.object(PureMsgpackCodec, "pack", refuse), mock.patch.object(PureMsgpackCodec, "unpack", refuse):
        frames = [registry.serialize(value).to_bytes() for value in values * 2]
        # ... in the one call (the full path would write the same bytes)
        assert all(registry.codec.serialize_top(value) is not NotImplemented for value in values)
        assert [registry.deserialize(frame) for frame in frames] == values * 2
    assert frames == [pure.serialize(value).to_bytes() for value in values * 2]
