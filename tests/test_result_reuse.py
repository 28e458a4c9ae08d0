"""Results of the one-call path are made from freed ones (and their emptied buffer lists): every
new result is still a separate object with its own empty ``out_of_band_buffers``, whatever was done
with the results freed before it; and the struct table kept from a call that met no struct leaves
the next call's frame as a fresh registry's."""

from __future__ import annotations

import dataclasses
import gc
from typing import Any

import serreg


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


def _struct_registry() -> serreg.Registry:
    registry = serreg.Registry()
    registry.register_struct(_Point, "tests.reuse.Point")
    return registry


def test_the_struct_tables_of_calls_in_turn_stay_apart() -> None:
    values: list[Any] = [[_Point(1, 2)], {"a": 1}, {"p": _Point(3, 4), "q": [_Point(5, 6)]}, [1, 2], _Point(7, 8)]
    registry = _struct_registry()
    frames = [registry.serialize(value).to_bytes() for value in values * 3]
    assert frames == [_struct_registry().serialize(value).to_bytes() for value in values * 3]
    assert [registry.deserialize(frame) for frame in frames] == values * 3
