"""Implicit structs: plain objects the fallback would pickle whole, written as struct instances (docs/FORMAT.md 10.9).

Both backends (the compiled codec and the pure-Python one) write the same
bytes; a value with a shared object, a cycle, or anything pickle-specific is
pickled whole exactly as before; reading needs trust; hostile frames are
refused saying where.
"""

from __future__ import annotations

import collections
import dataclasses
import pickle
import subprocess
import sys
from typing import Any
from unittest import mock

import numpy as np
import pytest

import serreg
import serreg.registry
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.implicit.walk import GIVE_UP, OK, PLAIN, walk, walk_python
from serreg.wire.class_id import class_id_hash

from pickling import pickling_registry

PYOBJECTS = class_id_hash("serreg.pyobjects")
PICKLE5 = class_id_hash("serreg.pickle5")
STRUCTS = class_id_hash("serreg.structs")


@dataclasses.dataclass
class Record:
    id: int
    name: str
    tags: Any


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: int
    y: tuple

    def __post_init__(self) -> None:
        INITS.append(self.x)


INITS: list[int] = []


class Plain:
    def __init__(self, a: Any, b: Any) -> None:
        self.a = a
        self.b = b

    def __eq__(self, other: Any) -> bool:
        return type(other) is Plain and vars(other) == vars(self)


class Empty:
    def __eq__(self, other: Any) -> bool:
        return type(other) is Empty and not vars(other)


@dataclasses.dataclass
class Node:
    value: int
    children: list


@dataclasses.dataclass
class Reduced:
    a: int

    def __reduce__(self) -> Any:
        return (Reduced, (self.a,))


@dataclasses.dataclass(slots=True)
class Slotted:
    a: int


@dataclasses.dataclass
class Stated:
    a: int

    def __setstate__(self, state: Any) -> None:
        self.__dict__.update(state)


class MyList(list):  # type: ignore[type-arg]
    pass


def _pure_registry() -> serreg.Registry:
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return serreg.Registry()


COMPILED = serreg.Registry()
PURE = _pure_registry()
REGISTRIES = [COMPILED, PURE]


def _with_extra(record: Record) -> Record:
    record.extra = {"k": [1, 2]}  # type: ignore[attr-defined]
    return record


VALUES = {
    "dataclass": Record(1, "a", ["x"]),
    "list": [Record(i, f"n{i}", ["a", "b"]) for i in range(50)],
    "frozen": [Frozen(1, (2, 3)), Frozen(4, ())],
    "plain": {"k": Plain(1, "b"), "j": [Plain(2, None), Plain(3.5, b"x")]},
    "nested": Node(1, [Node(2, []), Node(3, [Node(4, [])])]),
    "mixed": [1, "s", (Record(1, "a", []), {"p": Plain(1, 2)}), {Frozen(7, ())}, None],
    "tuple": (Record(1, "a", []), 2),
    "set": {Frozen(1, ()), Frozen(2, ("x",))},
    "empty": [Empty(), Empty()],
    "extra attributes": [_with_extra(Record(1, "a", None)), _with_extra(Record(2, "b", None))],
    "atoms shared": [Record(1, "same" * 10, (1, 2)), Record(2, "same" * 10, (1, 2))],
    "standard types": [Plain(1.5 + 2j, bytearray(b"ab")), Plain(frozenset({1}), {1, 2})],
}


def _frame(registry: serreg.Registry, value: Any) -> bytes:
    return registry.serialize(value).to_bytes()


def _class_hash(frame: bytes) -> bytes:
    in_band_at = 32 + 16 * int.from_bytes(frame[8:12], "little")
    return frame[in_band_at:in_band_at + 8]


@pytest.mark.parametrize("name", VALUES)
def test_plain_objects_travel_as_implicit_structs_both_backends_alike(name):
    value = VALUES[name]
    frames = [_frame(registry, value) for registry in REGISTRIES]
    assert frames[0] == frames[1]
    assert _class_hash(frames[0]) == PYOBJECTS
    for registry in REGISTRIES:
        for data in (frames[0], registry.serialize(value)):
            back = registry.deserialize(data)
            assert back == value and type(back) is type(value)


def test_instances_are_rebuilt_as_pickle_rebuilds_them():
    INITS.clear()
    back = COMPILED.deserialize(_frame(COMPILED, [Frozen(1, ()), Frozen(2, ())]))
    assert INITS == [1, 2]  # only the two made here: decoding calls neither __init__ nor __post_init__
    assert back == [Frozen(1, ()), Frozen(2, ())]
    with pytest.raises(dataclasses.FrozenInstanceError):
        back[0].x = 5
    extra = COMPILED.deserialize(_frame(COMPILED, VALUES["extra attributes"]))
    assert [vars(r) for r in extra] == [vars(r) for r in VALUES["extra attributes"]]


class Guarded:
    """``x`` is a property whose setter refuses: pickle puts the state into ``__dict__`` past it."""

    def __init__(self, x: int) -> None:
        self.__dict__["x"] = x
        self.y = [x]

    @property
    def x(self) -> int:
        return self.__dict__["x"]  # type: ignore[no-any-return]

    @x.setter
    def x(self, value: int) -> None:
        raise AttributeError("read only")


def test_the_state_goes_into_dict_past_descriptors_as_pickle_puts_it():
    value = [Guarded(1), Guarded(2)]
    frame = _frame(COMPILED, value)
    assert _class_hash(frame) == PYOBJECTS and frame == _frame(PURE, value)
    for registry in REGISTRIES:
        for data in (frame, _frame(COMPILED, Guarded(3))):
            back = registry.deserialize(data)
            back = back if type(back) is list else [back]
            assert all(type(b) is Guarded and vars(b)["x"] == b.x and b.y == [b.x] for b in back)


def test_a_class_defined_in_a_function_travels_by_value():
    @dataclasses.dataclass
    class Local:
        a: int

    frame = _frame(COMPILED, [Local(1), Local(2)])
    assert _class_hash(frame) == PYOBJECTS and frame == _frame(PURE, [Local(1), Local(2)])
    assert COMPILED.deserialize(frame) == [Local(1), Local(2)]


_MAIN_SCRIPT = """
import dataclasses, sys
import serreg

@dataclasses.dataclass
class Reading:
    sensor: int
    unit: str

import cloudpickle
print(cloudpickle.dumps((Reading,), protocol=5).count(b"sensor"))
print(serreg.serialize([Reading(i, "degC") for i in range(100)]).to_bytes().hex())
"""


def test_a_class_of_main_travels_by_value_once_and_is_rebuilt_elsewhere():
    out = subprocess.run([sys.executable, "-c", _MAIN_SCRIPT], check=True, capture_output=True, text=True).stdout
    in_class_pickle, written = out.split()
    frame = bytes.fromhex(written)
    assert _class_hash(frame) == PYOBJECTS
    assert frame.count(b"sensor") == int(in_class_pickle) + 1  # the class pickle, and the definition once
    back = COMPILED.deserialize(frame)
    assert [(r.sensor, r.unit) for r in back] == [(i, "degC") for i in range(100)]
    assert type(back[0]).__name__ == "Reading" and type(back[0]) is type(back[99])


def test_arrays_inside_travel_out_of_band():
    value = [Record(i, "a", np.arange(10) * i) for i in range(3)]
    result = COMPILED.serialize(value)
    assert len(result.out_of_band_buffers) == 3
    frame = result.to_bytes()
    assert _class_hash(frame) == PYOBJECTS
    assert frame == _frame(PURE, value)
    for registry in REGISTRIES:
        back = registry.deserialize(bytearray(frame))
        assert all(np.array_equal(b.tags, v.tags) for b, v in zip(back, value))


def _shared_list() -> Any:
    shared = ["x"]
    return [Record(1, "a", shared), Record(2, "b", shared)]


def _cycle() -> Any:
    node = Node(1, [])
    node.children.append(node)
    return [node]


def _twice() -> Any:
    record = Record(1, "a", [])
    return [record, record]


def _shared_tuple_with_list() -> Any:
    inner = (1, ["mutable"])
    return [Record(1, "a", inner), Record(2, "b", inner)]


def _keys_differ() -> Any:
    other = Record(2, "b", None)
    other.extra = 1  # type: ignore[attr-defined]
    return [Record(1, "a", None), other]


PICKLED = {
    "shared list": _shared_list,
    "cycle": _cycle,
    "instance twice": _twice,
    "shared tuple holding a list": _shared_tuple_with_list,
    "key lists differ": _keys_differ,
    "custom reduce": lambda: [Record(1, "a", Reduced(1))],
    "slots": lambda: [Record(1, "a", Slotted(1))],
    "setstate": lambda: [Stated(1), Record(1, "a", None)],
    "list subclass": lambda: [Record(1, "a", MyList([1]))],
    "ordered dict": lambda: [Record(1, "a", collections.OrderedDict(a=1))],
    "function": lambda: [Record(1, "a", len)],
    "array turned down by its serializer": lambda: [Record(1, "a", np.array([object()], dtype=object))],
}


@pytest.mark.parametrize("name", PICKLED)
def test_anything_pickle_specific_is_pickled_whole_as_before(name):
    value = PICKLED[name]()
    before = _frame(pickling_registry(), value)
    assert _class_hash(before) == PICKLE5
    for registry in REGISTRIES:
        assert _frame(registry, value) == before
    back = COMPILED.deserialize(before)
    if name == "shared list":
        assert back[0].tags is back[1].tags
    if name == "cycle":
        assert back[0].children[0] is back[0]


class _PlainSerializer:
    def serialize(self, obj: Plain) -> serreg.SerializationResult:
        return serreg.SerializationResult(pickle.dumps((obj.a, obj.b)), [])

    def deserialize(self, in_band: Any, oob: Any) -> Plain:
        return Plain(*pickle.loads(in_band))


def test_registered_serializers_and_declared_structs_win():
    registry = serreg.Registry()
    registry.register_serializer("t.Plain", Plain, _PlainSerializer())
    value = [Record(1, "a", None), Plain(1, 2)]
    frame = _frame(registry, value)
    assert _class_hash(frame) == PYOBJECTS and b"serreg.pyobject:" in frame
    assert frame.count(b"test_implicit_structs:Plain") == 0  # written by its serializer, not as an implicit struct
    assert registry.deserialize(frame) == value

    @dataclasses.dataclass
    class Declared:
        a: int

    declared = serreg.Registry()
    declared.register_struct(Declared, "t.Declared")
    assert _class_hash(_frame(declared, Declared(1))) == STRUCTS
    # A value holding declared structs besides plain objects is pickled whole, as before.
    mixed = [Declared(1), Record(1, "a", None)]
    plain = pickling_registry()
    plain.register_struct(Declared, "t.Declared")
    assert _frame(declared, mixed) == _frame(plain, mixed)


def test_untrusted_readers_refuse_it_by_class_id():
    frame = _frame(COMPILED, VALUES["list"])
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
    frame = _frame(per_value, value)
    assert _class_hash(frame) != PYOBJECTS and per_value.deserialize(frame) == value
    off = serreg.Registry()
    off.configure_fallback(implicit_structs=False)
    assert _class_hash(_frame(off, value)) == PICKLE5
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
    frame = _frame(COMPILED, chain)
    assert COMPILED.deserialize(frame) == chain
    with pytest.raises(serreg.LimitExceededError):
        COMPILED.deserialize(frame, limits=serreg.Limits(max_depth=10))


@pytest.mark.parametrize("name", [*VALUES, *PICKLED])
def test_the_compiled_walk_answers_as_the_python_walk(name):
    value = VALUES[name] if name in VALUES else PICKLED[name]()
    kinds = {cls: PLAIN for cls in (Record, Frozen, Plain, Empty, Node)}
    compiled, python = walk(value, kinds), walk_python(value, kinds)
    assert compiled[0] == python[0]
    if compiled[0] == OK:
        assert compiled[1] == python[1]
    if name in ("shared list", "cycle", "instance twice", "shared tuple holding a list", "key lists differ"):
        assert compiled[0] == GIVE_UP


def test_the_worked_example_of_the_format_document():
    import types

    module = types.ModuleType("shop")
    point = type("Point", (), {"__module__": "shop"})
    module.Point = point  # type: ignore[attr-defined]
    sys.modules["shop"] = module
    try:
        obj = point()
        obj.x, obj.y = 1, 2
        expected = bytes.fromhex(
            "353e9ef6194f852e" "c41f" "80059514000000000000008c0473686f70948c05506f696e749493948594" "2e"
            "989b856529bd77a0" "91" "92ba" + b"serreg.pyobject:shop:Point".hex()
            + "9292a178a3616e7992a179a3616e79" "472fe6d27f654761" "93000102"
        )
        for registry in REGISTRIES:
            assert bytes(registry.serialize(obj).in_band_buffer) == expected
            back = registry.deserialize(registry.serialize(obj).to_bytes())
            assert type(back) is point and vars(back) == {"x": 1, "y": 2}
    finally:
        del sys.modules["shop"]


def test_serreg_inspect_shows_the_section_without_unpickling(tmp_path):
    path = tmp_path / "plain.srg"
    path.write_bytes(_frame(COMPILED, VALUES["list"]))
    out = subprocess.run([sys.executable, "-m", "serreg", "inspect", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "serreg.pyobjects" in out.stdout and "not unpickled" in out.stdout
