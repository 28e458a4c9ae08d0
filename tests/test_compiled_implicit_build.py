"""Implicit struct instances (docs/FORMAT.md 10.9) written and built by the compiled codec, both ways it
has: through CPython's own dict tables (instances' split ``__dict__`` read in place, the instance's
``__dict__`` made as a copy of a dict of its keys) and through the public API alone (``dict_layout(False)``,
what it does on a CPython whose tables it does not mirror). Either way the bytes, the values and the
errors are the pure codec's."""

from __future__ import annotations

import abc
import dataclasses
from typing import Any, Callable
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
import serreg.result
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

from call_outcomes import outcome_written_by
from strategies import mutations

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built")


class Plain:
    def __init__(self, a: Any, b: Any, c: Any) -> None:
        self.a = a
        self.b = b
        self.c = c


@dataclasses.dataclass
class Record:
    id: int
    name: str
    score: float
    active: bool
    tags: list[Any]


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: int
    y: str


class Guarded:
    """Its __setattr__ refuses: the reader fills the __dict__ past it, as pickle does."""

    def __init__(self, x: Any) -> None:
        object.__setattr__(self, "x", x)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("read only")


POST_INITS: list[Any] = []


@dataclasses.dataclass
class Counted:
    v: int

    def __post_init__(self) -> None:
        POST_INITS.append(self.v)


class Wide:
    """More attributes than an instance's split table holds: a dict of its own."""

    def __init__(self) -> None:
        for i in range(40):
            setattr(self, f"f{i}", i)


class Abstract:
    pass


Abstract.__abstractmethods__ = frozenset({"run"})  # type: ignore[attr-defined]


def _deleted() -> Plain:
    made = Plain(1, "two", [3])
    del made.b  # a split table with a hole in its insertion order
    made.d = None
    return made


def _replaced() -> Plain:
    made = Plain(1, 2, 3)
    made.__dict__ = {"c": 3.5, "a": "x"}  # a dict of its own, keys in another order
    return made


def _abstract() -> Abstract:
    made = object.__new__(Plain)
    made.v = 1
    made.__class__ = Abstract
    return made  # type: ignore[return-value]


VALUES: dict[str, Callable[[], Any]] = {
    "plain": lambda: Plain(7, "seven", [1, 2]),
    "record": lambda: Record(7, "user7", 3.5, True, ["a", "b"]),
    "frozen": lambda: Frozen(1, "y"),
    "guarded": lambda: Guarded({"k": (1, 2)}),
    "post_init": lambda: Counted(5),
    "wide": Wide,
    "deleted": _deleted,
    "replaced": _replaced,
    "nested": lambda: Plain(Record(1, "in", 0.5, False, []), None, {"x": [1.5]}),
}


def _pure_registry() -> serreg.Registry:
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return serreg.Registry()


@pytest.fixture(params=[True, False], ids=["tables", "public-api"])
def mirrored(request: Any) -> Any:
    from serreg.codec import _core

    before = _core.dict_layout()
    _core.dict_layout(request.param)
    yield request.param
    _core.dict_layout(before)


def _state(value: Any) -> list[tuple[str, Any]]:
    return list(object.__getattribute__(value, "__dict__").items())


@pytest.mark.parametrize("name", VALUES)
def test_an_instance_reads_back_as_the_pure_codec_reads_it(name: str, mirrored: bool) -> None:
    compiled, pure = serreg.Registry(), _pure_registry()
    for _ in range(3):  # the first call publishes what the next ones take in one call
        value = VALUES[name]()
        POST_INITS.clear()
        frame = compiled.serialize(value).to_bytes()
        assert frame == pure.serialize(value).to_bytes()
        for registry in (compiled, pure):
            for source in (registry.serialize(value), frame):
                read = registry.deserialize(source)
                assert type(read) is type(value)
                assert type(object.__getattribute__(read, "__dict__")) is dict
                assert _state(read) == _state(value)
        assert POST_INITS == []  # no __init__, no __post_init__: the fields are put in place


def test_an_abstract_class_is_refused_with_the_pure_codec_s_words(mirrored: bool) -> None:
    compiled, pure = serreg.Registry(), _pure_registry()
    value = _abstract()
    errors = []
    for registry in (compiled, compiled, pure):
        frame = registry.serialize(value).to_bytes()
        with pytest.raises(Exception) as caught:
            registry.deserialize(frame)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1] == errors[2]


def test_the_public_api_way_can_be_chosen_and_restored() -> None:
    from serreg.codec import _core

    found = _core.dict_layout()
    assert _core.dict_layout(False) is False
    assert _core.dict_layout(True) is found
    assert _core.dict_layout() is found


COMPILED_REGISTRY, PURE_REGISTRY = serreg.Registry(), _pure_registry()
# One top-level instance per frame (the compiled reader's one-call way once a frame of its class was read).
FRAMES = [PURE_REGISTRY.serialize(make()).to_bytes() for make in VALUES.values()]


def outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    """("value", its frame under the pure registry), or ("error", type, message)."""
    return outcome_written_by(PURE_REGISTRY, call)


# (ClassIDHash, in-band) of each frame: its instance array, at the end, is what the tail mutations change.
SECTIONS = [(frame[32:40], frame[40:]) for frame in FRAMES]
NOTABLE = [0x00, 0x01, 0x7F, 0x90, 0x91, 0x95, 0x9F, 0xC0, 0xC1, 0xC2, 0xC4, 0xC7, 0xCB, 0xD4, 0xD9, 0xDC, 0xDE, 0xE0, 0xFF]


@st.composite
def tail_mutated(draw: Any) -> tuple[bytes, bytes]:
    """A frame whose last bytes (its instance array) are changed, cut or grown, and the frame it came from."""
    class_hash, in_band = draw(st.sampled_from(SECTIONS))
    changed = bytearray(in_band)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(max(0, len(changed) - 40), len(changed) - 1))
        how = draw(st.sampled_from(["set", "set", "delete", "insert", "cut"]))
        byte = draw(st.sampled_from(NOTABLE) | st.integers(0, 255))
        if how == "set":
            changed[at] = byte
        elif how == "delete":
            del changed[at]
        elif how == "insert":
            changed.insert(at, byte)
        else:
            del changed[at:]
    made = serreg.result.with_class_hash
    return made(class_hash, bytes(changed), []).to_bytes(), made(class_hash, in_band, []).to_bytes()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tail_mutated(), st.sampled_from([None, 1, 2, 3]))
def test_frames_with_a_changed_instance_array_read_alike(mutated: tuple[bytes, bytes], depth: Any) -> None:
    frame, original = mutated
    COMPILED_REGISTRY.deserialize(original)  # its class's prefix published: the one-call way reads the next
    limits = {} if depth is None else {"limits": serreg.Limits(max_depth=depth)}
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, **limits))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, **limits))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(FRAMES), st.booleans())
def test_mutated_frames_give_the_same_value_or_the_same_error(frame: bytes, trusted: bool) -> None:
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))


@pytest.mark.parametrize("name", ["record", "plain", "frozen", "deleted"])
def test_an_instance_of_a_class_read_before_is_read_in_one_call(name: str, mirrored: bool) -> None:
    from serreg.implicit.reader import PyObjectsSerializer

    registry = serreg.Registry()
    value = VALUES[name]()
    result = registry.serialize(value)
    frame = result.to_bytes()
    registry.deserialize(frame)  # read by the full path, which publishes the frame's prefix
    refuse = mock.Mock(side_effect=AssertionError("the full path was taken"))
    with mock.patch.object(PyObjectsSerializer, "deserialize", refuse):
        for source in (frame, result, registry.serialize(value)):
            read = registry.deserialize(source)
            assert type(read) is type(value) and _state(read) == _state(value)


@pytest.mark.parametrize("name", ["record", "plain"])
def test_an_instance_read_after_a_list_of_its_class_is_read_in_one_call(name: str) -> None:
    """A list of instances read first leaves the reader the same table: the single instance read next
    (by the reader's inline way) still publishes its prefix, so the reads after it take one call."""
    from serreg.implicit.reader import PyObjectsSerializer

    registry = serreg.Registry()
    value = VALUES[name]()
    many = [VALUES[name]() for _ in range(3)]
    read_many = registry.deserialize(registry.serialize(many).to_bytes())
    assert [_state(v) for v in read_many] == [_state(v) for v in many]
    frame = registry.serialize(value).to_bytes()
    assert _state(registry.deserialize(frame)) == _state(value)  # the inline way: the list's table, kept
    refuse = mock.Mock(side_effect=AssertionError("the reader was called: the frame was not read in one call"))
    with mock.patch.object(PyObjectsSerializer, "deserialize", refuse):
        for source in (frame, registry.serialize(value)):
            read = registry.deserialize(source)
            assert type(read) is type(value) and _state(read) == _state(value)
