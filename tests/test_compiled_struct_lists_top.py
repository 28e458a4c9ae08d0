"""Struct frames through the compiled codec's one-call entries (``serialize_top``, ``unpack_top``).

Instances and lists of instances with their table are written and read in one call with the
bytes, values and errors of the full path, under every depth limit; what the one call does not
take (carriers, values another serializer writes, refused values, other definitions, mutated
tables) is left to the full path, and a list of carriers inside a value goes alone to the pure
codec (docs/FORMAT.md 10).
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

from struct_list_frames import HOSTILE, ext2, table_frame
from struct_registries import COMPILED_REGISTRY, PURE_REGISTRY, Frozen, Row, outcome, written
from struct_shapes import Pair, Point, everything, register, tree, widths

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")


def test_serialize_top_writes_structs_with_their_table_as_the_full_path_does():
    carrier = COMPILED_REGISTRY.deserialize(table_frame([["no.Such", [["n", "int8"]]]], msgpack.packb([ext2(0, 1, b"\x00\x01")])))[0][0]
    written_in_one_call = [Point(1, 2, 3), [Point(1, 2, 3)] * 3, {"a": [tree()], "b": (widths(), Row("k", 1))},
                           [Frozen(1, None, "x"), [Frozen(2, 0.5, "")]], [1, "x", None]]
    for value in written_in_one_call:
        result = COMPILED_REGISTRY.codec.serialize_top(value)
        assert type(result) is serreg.SerializationResult
        assert result.to_bytes() == PURE_REGISTRY.serialize(value).to_bytes()
        assert COMPILED_REGISTRY.deserialize(result.to_bytes()) == value
    # Not plain: a carrier, a value another serializer writes (a decimal field), a value its field refuses
    # (the full path words it).
    for value in (carrier, [carrier], everything(), Point(2**64, 0, 0), [Row("k", 2**20)]):
        assert COMPILED_REGISTRY.codec.serialize_top(value) is NotImplemented
        assert written(COMPILED_REGISTRY, value) == written(PURE_REGISTRY, value)


def _registries(**options: Any) -> list[serreg.Registry]:
    """A compiled and a pure registry made with ``options``, with the struct classes of these tests."""
    made = []
    for codec in (serreg.registry.MsgpackCodec, PureMsgpackCodec):
        with mock.patch.object(serreg.registry, "MsgpackCodec", codec):
            registry = serreg.Registry(**options)
        register(registry)
        for class_id, cls in (("t.Frozen", Frozen), ("t.Row", Row)):
            registry.register_struct(cls, class_id)
        made.append(registry)
    return made


TOP_VALUES = [Point(1, 2, 3), [Point(1, 2, 3)] * 3, tree(), [tree(), tree()], {"a": [Row("k", 1)]}, widths(),
              [Pair("a", 1)], Pair("b", 2), [[Point(1, 2, 3)], []], [Frozen(1, None, "x")] * 2]


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 4, 100])
def test_unpack_top_reads_struct_frames_as_the_full_path_does(max_depth):
    compiled, pure = _registries(limits=serreg.Limits(max_depth=max_depth))
    for value in TOP_VALUES:
        frame = pure.serialize(value).to_bytes()
        result = compiled.serialize(value)
        assert result.to_bytes() == frame
        for data in (frame, result):
            assert outcome(lambda: compiled.deserialize(data)) == outcome(lambda: pure.deserialize(data))


def test_unpack_top_reads_struct_frames_in_one_call():
    refuse = mock.Mock(side_effect=AssertionError("the full path was taken"))
    frames = [COMPILED_REGISTRY.serialize(v).to_bytes() for v in TOP_VALUES]
    with mock.patch.object(serreg.structs.serializers.TableSerializer, "deserialize", refuse):
        assert [COMPILED_REGISTRY.deserialize(f) for f in frames] == TOP_VALUES
    # Anything else is read by the full path (which words the refusal): another definition, a carrier,
    # a value refused by its field's type, a mutated table.
    others = [HOSTILE["evolved definition"], HOSTILE["unknown class"], HOSTILE["str column holding an int"],
              frames[0][:40] + b"\xff" + frames[0][41:]]
    for frame in others:
        assert outcome(lambda: COMPILED_REGISTRY.deserialize(frame)) == outcome(lambda: PURE_REGISTRY.deserialize(frame))


def test_a_list_of_carriers_inside_a_value_is_handed_alone_to_the_pure_codec():
    carrier = COMPILED_REGISTRY.deserialize(table_frame([["no.Such", [["n", "int8"]]]], msgpack.packb([ext2(0, 1, b"\x00\x01")])))[0][0]
    assert type(carrier) is serreg.StructValue
    value = {"points": [Point(1, 2, 3)] * 2, "carriers": [carrier, carrier], "mixed": [carrier, Point(4, 5, 6)]}
    calls = []
    original = PureMsgpackCodec.pack

    def pack(self: Any, obj: Any, oob: list[Any]) -> bytes:
        calls.append(obj)
        return original(self, obj, oob)

    with mock.patch.object(PureMsgpackCodec, "pack", pack):
        frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert calls == [value["carriers"], value["mixed"]]  # each list alone, never the whole value
    assert frame == PURE_REGISTRY.serialize(value).to_bytes()
    assert COMPILED_REGISTRY.deserialize(frame) == value
