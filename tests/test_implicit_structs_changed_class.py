"""Lists of implicit structs read after their class changed (docs/FORMAT.md 10.9).

The compiled reader sets an instance's fields as attributes while no field has a data descriptor on
its class, checked when the class last changed (copyreg sets ``__slotnames__`` on a class at its first
pickling check, after its plan is made); once a field has one, it fills ``__dict__`` directly, as the
pure reader and pickle do. Both backends give the same instances either way.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash


def _pure_registry() -> serreg.Registry:
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return serreg.Registry()


def _make_class() -> Any:
    class Row:
        def __init__(self, a: Any, b: Any) -> None:
            self.a = a
            self.b = b

    return Row


@pytest.mark.parametrize("backend", ["compiled", "pure"])
def test_instances_read_after_their_class_changed_are_as_written(backend, monkeypatch):
    registry = serreg.Registry() if backend == "compiled" else _pure_registry()
    cls = _make_class()
    cls.__qualname__ = cls.__name__ = "ChangedRow"
    cls.__module__ = __name__
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "ChangedRow", cls, raising=False)
    value = [cls(i, [f"v{i}"]) for i in range(20)]
    frame = registry.serialize(value).to_bytes()
    assert class_id_hash("serreg.structs") in frame and class_id_hash("serreg.pickle5") not in frame
    first = registry.deserialize(frame)
    assert [(o.a, o.b) for o in first] == [(i, [f"v{i}"]) for i in range(20)]

    cls.note = "a class attribute set after the plan was made"  # the class changes: fields still plain
    assert [o.b for o in value][0] == ["v0"]  # attributes looked up on the class again (its new version)
    again = registry.deserialize(frame)
    assert [vars(o) for o in again] == [vars(o) for o in value]

    seen = []

    def set_a(obj: Any, v: Any) -> None:
        seen.append(v)
        obj.__dict__["a"] = -1

    cls.a = property(lambda obj: obj.__dict__["a"] * 100, set_a)  # now a data descriptor for field a
    assert [o.a for o in value][1] == 100
    later = registry.deserialize(frame)
    assert seen == []  # __dict__ filled directly: the setter is not called
    assert [o.__dict__ for o in later] == [{"a": i, "b": [f"v{i}"]} for i in range(20)]
    assert [o.a for o in later] == [100 * i for i in range(20)]
