"""Implicit structs and the options around them (docs/FORMAT.md 10.9): registered serializers
and declared structs win; reading needs trust; cross-language, canonical, per-value and
switched-off fallbacks are unchanged; the reserved class ID prefix is refused; depth limits
hold.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

import serreg

from implicit_shapes import COMPILED, PICKLE5, PYOBJECTS, STRUCTS, VALUES, Node, Plain, Record, class_hash, frame_of
from pickling import pickling_registry


class _PlainSerializer:
    def serialize(self, obj: Plain) -> serreg.SerializationResult:
        return serreg.SerializationResult(pickle.dumps((obj.a, obj.b)), [])

    def deserialize(self, in_band: Any, oob: Any) -> Plain:
        return Plain(*pickle.loads(in_band))


def test_registered_serializers_and_declared_structs_win():
    registry = serreg.Registry()
    registry.register_serializer("t.Plain", Plain, _PlainSerializer())
    value = [Record(1, "a", None), Plain(1, 2)]
    frame = frame_of(registry, value)
    assert class_hash(frame) == PYOBJECTS and b"serreg.pyobject:" in frame
    assert frame.count(f"{Plain.__module__}:Plain".encode()) == 0  # written by its serializer, not as an implicit struct
    assert registry.deserialize(frame) == value

    @dataclasses.dataclass
    class Declared:
        a: int

    declared = serreg.Registry()
    declared.register_struct(Declared, "t.Declared")
    assert class_hash(frame_of(declared, Declared(1))) == STRUCTS
    # A value holding declared structs besides plain objects is pickled whole, as before.
    mixed = [Declared(1), Record(1, "a", None)]
    plain = pickling_registry()
    plain.register_struct(Declared, "t.Declared")
    assert frame_of(declared, mixed) == frame_of(plain, mixed)


def test_untrusted_readers_refuse_it_by_class_id():
    frame = frame_of(COMPILED, VALUES["list"])
    for call in (lambda: COMPILED.deserialize(frame, trusted=False),
                 lambda: serreg.Registry(trusted=False).deserialize(frame)):
        with pytest.raises(serreg.UntrustedClassIDError) as raised:
            call()
        assert "serreg.pyobjects" in str(raised.value)
    with pytest.raises(ValueError):
        COMPILED.allow_class_ids("serreg.pyobjects")


def test_other_options_are_unchanged():
    value = VALUES["list"]
    with pytest.raises(serreg.CrossLanguageError):
        COMPILED.serialize(value, cross_language=True)
    outcomes = []
    for registry in (COMPILED, pickling_registry()):
        try:
            outcomes.append(("frame", registry.serialize(value, canonical=True).to_bytes()))
        except serreg.SerregError as error:
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1]  # the canonical form does not use implicit structs
    per_value = serreg.Registry()
    per_value.configure_fallback(whole_values=False)
    frame = frame_of(per_value, value)
    assert class_hash(frame) != PYOBJECTS and per_value.deserialize(frame) == value
    off = serreg.Registry()
    off.configure_fallback(implicit_structs=False)
    assert class_hash(frame_of(off, value)) == PICKLE5
    with pytest.raises(TypeError):
        off.configure_fallback(implicit_structs="yes")  # type: ignore[arg-type]


def test_a_struct_id_under_the_reserved_prefix_is_refused():
    @dataclasses.dataclass
    class Sneaky:
        a: int

    with pytest.raises(TypeError, match="serreg.pyobject:"):
        serreg.Registry().register_struct(Sneaky, "serreg.pyobject:x:Sneaky")


def test_depth_limits_hold():
    chain = Node(0, [])
    for i in range(1, 30):
        chain = Node(i, [chain])
    frame = frame_of(COMPILED, chain)
    assert COMPILED.deserialize(frame) == chain
    with pytest.raises(serreg.LimitExceededError):
        COMPILED.deserialize(frame, limits=serreg.Limits(max_depth=10))
