"""Python writes a value at most 1,024 levels deep (docs/FORMAT.md, 4.3), on both codecs.

Every reader's default limit is 1,024 msgpack containers open at once in one in-band (an empty one
counted too), so the deepest value Python writes, 1,024 lists (or dicts) one inside another, is read
back by Python, Java and TypeScript, and one level more is refused when written, with the documented
message, so no frame Python writes is one its own readers refuse.
"""

from __future__ import annotations

from typing import Any, Callable
from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.limits import MSGPACK_MAX_NESTING
from test_typescript import ts_built  # noqa: F401  (module fixture: the built package)

TOO_DEEP = f"value is nested more than {MSGPACK_MAX_NESTING} levels deep or contains itself (at obj)"


def _pure_registry() -> serreg.Registry:
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return serreg.Registry()


REGISTRIES = {"pure": _pure_registry}
if COMPILED:
    REGISTRIES["compiled"] = serreg.Registry


def lists(levels: int, innermost: Any = None) -> list[Any]:
    """``levels`` lists one inside another; the innermost holds ``innermost`` (None: it is empty)."""
    value: list[Any] = [] if innermost is None else [innermost]
    for _ in range(levels - 1):
        value = [value]
    return value


def dicts(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"k": value}
    return value


def depth(value: Any) -> int:
    """How many lists, dicts and tuples hold each other at the deepest, walked without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, (list, tuple)):
            deepest = max(deepest, level)
            todo.extend((inner, level + 1) for inner in item)
        elif isinstance(item, dict):
            deepest = max(deepest, level)
            todo.extend((inner, level + 1) for inner in item.values())
    return deepest


DEEPEST: dict[str, Callable[[], Any]] = {
    "lists": lambda: lists(MSGPACK_MAX_NESTING),
    "lists around an int": lambda: lists(MSGPACK_MAX_NESTING - 1, 7),
    "dicts": lambda: dicts(MSGPACK_MAX_NESTING),
    "a tuple's in-band": lambda: (lists(MSGPACK_MAX_NESTING - 1),),  # its items' array is level 1
}
ONE_MORE: dict[str, Callable[[], Any]] = {
    "lists": lambda: lists(MSGPACK_MAX_NESTING + 1),
    "lists around an int": lambda: lists(MSGPACK_MAX_NESTING, 7),
    "dicts": lambda: dicts(MSGPACK_MAX_NESTING + 1),
    "a tuple's in-band": lambda: (lists(MSGPACK_MAX_NESTING),),
}


@pytest.mark.parametrize("codec", sorted(REGISTRIES))
@pytest.mark.parametrize("kind", sorted(DEEPEST))
def test_the_deepest_value_written_is_read_back(codec: str, kind: str) -> None:
    registry = REGISTRIES[codec]()
    value = DEEPEST[kind]()
    frame = registry.serialize(value).to_bytes()
    for trusted in (True, False):
        back = registry.deserialize(frame, trusted=trusted)
        assert depth(back) == depth(value)
        assert registry.serialize(back).to_bytes() == frame


@pytest.mark.parametrize("codec", sorted(REGISTRIES))
@pytest.mark.parametrize("kind", sorted(ONE_MORE))
def test_one_level_more_is_refused_when_written(codec: str, kind: str) -> None:
    registry = REGISTRIES[codec]()
    with pytest.raises(serreg.SerializationError) as error:
        registry.serialize(ONE_MORE[kind]())
    assert str(error.value) == TOO_DEEP


def test_the_deepest_frames_are_read_by_java(java_jar: Any) -> None:
    from java_fixture import JavaProcess

    process = JavaProcess("check", "--classes")
    try:
        for kind, make in sorted(DEEPEST.items()):
            readings = serreg.deserialize(process.round_trip(serreg.serialize(make()).to_bytes())).split("\n")
            assert readings == ["value", "value"], (kind, readings)
    finally:
        assert process.close() == 0


def test_the_deepest_frames_are_read_by_typescript(ts_built: Any) -> None:
    from typescript_fixture import TypeScriptCheck

    check = TypeScriptCheck()
    try:
        for kind, make in sorted(DEEPEST.items()):
            trusted, untrusted, _ = check.answer(serreg.serialize(make()).to_bytes())
            assert (trusted, untrusted) == ("value", "value"), kind
    finally:
        assert check.close() == 0
