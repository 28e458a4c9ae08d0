"""A value nested in another that its own serializer refuses is named by its byte offset, on both codecs.

A codec reads a nested value (msgpack ext 0) without counting where it sits in the frame; on the
error path only, ``Registry.deserialize`` finds the failing value in the frame (the first nested
value in stream order at its level with its ClassIDHash and in-band) and names the start of its
in-band, plus the byte the serializer names in it (``in_band_offset``), as Java does
(docs/FORMAT.md, section 4.1). The cross-language counts are in tests/test_error_parity_java.py.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import msgpack
import pytest

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import CLASS_ID_HASH_SIZE, class_id_hash

BOX = "test.offsets.Box"


class Box:
    def __init__(self, n: int) -> None:
        self.n = n


def _serialize(box: Box) -> bytes:
    return msgpack.packb(box.n)  # type: ignore[no-any-return]


def _deserialize(in_band: memoryview) -> Box:
    n = msgpack.unpackb(in_band)
    if n < 0:
        raise ValueError(f"a box holds no negative number, got {n}")
    if n == 999:
        raise serreg.DeserializationError("the box's second byte is refused", in_band_offset=1)
    return Box(n)


def _registry(pure: bool) -> serreg.Registry:
    if pure:
        with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
            registry = serreg.Registry()
    else:
        registry = serreg.Registry()
    registry.register_serializer(BOX, Box, serialize=_serialize, deserialize=_deserialize)
    registry.allow_class_ids(BOX)
    return registry


CODECS = ["pure", "compiled"] if COMPILED else ["pure"]


def _in_band_starts(frame: bytes) -> list[int]:
    """Where the in-band of each Box in ``frame`` starts (after its ClassIDHash), in stream order."""
    needle, found, at = class_id_hash(BOX), [], frame.find(class_id_hash(BOX))
    while at >= 0:
        found.append(at + CLASS_ID_HASH_SIZE)
        at = frame.find(needle, at + 1)
    return found


def _refusal(registry: serreg.Registry, value: Any, trusted: bool = True) -> tuple[serreg.DeserializationError, list[int]]:
    frame = registry.serialize(value).to_bytes()
    with pytest.raises(serreg.DeserializationError) as error:
        registry.deserialize(frame, trusted=trusted)
    return error.value, _in_band_starts(frame)


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("trusted", [True, False])
def test_the_refused_box_is_named_not_an_earlier_one(codec: str, trusted: bool) -> None:
    registry = _registry(codec == "pure")
    error, starts = _refusal(registry, [Box(1), [Box(-1)], Box(-1), Box(-1)], trusted)
    assert error.offset == starts[1], (str(error), starts)
    assert str(error) == (f"could not decode the value: ValueError: a box holds no negative number, got -1 "
                          f"(class ID '{BOX}', byte offset {starts[1]}, inside list)")


@pytest.mark.parametrize("codec", CODECS)
def test_a_box_alike_at_another_level_is_not_taken_for_it(codec: str) -> None:
    registry = _registry(codec == "pure")
    error, starts = _refusal(registry, ([Box(5)], Box(5), (Box(-2),)))
    assert error.offset == starts[2], (str(error), starts)
    assert error.nesting == ["tuple", "tuple"]


@pytest.mark.parametrize("codec", CODECS)
def test_the_byte_the_serializer_names_in_its_in_band(codec: str) -> None:
    registry = _registry(codec == "pure")
    error, starts = _refusal(registry, {"a": Box(3), "b": (Box(999),)})
    assert error.offset == starts[1] + 1, (str(error), starts)


@pytest.mark.parametrize("codec", CODECS)
def test_a_value_refused_past_max_depth_is_named_by_its_section(codec: str) -> None:
    registry = _registry(codec == "pure")
    value: Any = Box(1)
    for _ in range(4):
        value = [value, (value,)]
    frame = registry.serialize(value).to_bytes()
    with pytest.raises(serreg.LimitExceededError) as error:
        registry.deserialize(frame, limits=serreg.Limits(max_depth=3))
    # The first value four levels deep in stream order (the top list is level 1, each tuple one more,
    # a list inside none): the fourth Box, [[[[B, (B,)], ([B, (B,)],)] ...; its section, not its in-band.
    offset = error.value.offset
    assert offset is not None and offset + CLASS_ID_HASH_SIZE == _in_band_starts(frame)[3], str(error.value)
    assert len(error.value.nesting) == 3

