"""Registration rules: override, restore, refusals, hash collisions, lookup by exact type."""

import pytest

import serreg
from serreg import SerializationResult, Serializer


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class TaggedSerializer(Serializer):
    """Writes a tag so a test can see which serializer ran."""

    def __init__(self, tag: bytes):
        self.tag = tag

    def serialize(self, obj):
        return SerializationResult(self.tag)

    def deserialize(self, in_band_buffer, oob_iterator):
        return ("decoded by", bytes(in_band_buffer))


def test_newest_id_for_a_type_is_used_and_unregister_restores_previous():
    registry = serreg.Registry()
    registry.register_serializer("old.Point", Point, TaggedSerializer(b"old"))
    old_frame = registry.serialize(Point(1, 2)).to_bytes()
    registry.register_serializer("new.Point", Point, TaggedSerializer(b"new"))
    assert registry.deserialize(registry.serialize(Point(1, 2)).to_bytes()) == ("decoded by", b"new")
    assert registry.deserialize(old_frame) == ("decoded by", b"old")  # older ID still decodes
    registry.unregister_serializer("new.Point")
    assert registry.deserialize(registry.serialize(Point(1, 2))) == ("decoded by", b"old")
    assert registry.get_serializer(Point).tag == b"old"


def test_overriding_a_builtin_applies_at_top_level_and_inside_containers():
    registry = serreg.Registry()
    registry.register_serializer("my.str", str, TaggedSerializer(b"S"))
    assert registry.deserialize(registry.serialize("x")) == ("decoded by", b"S")
    assert registry.deserialize(registry.serialize({"k": ["x"]}).to_bytes()) == {
        ("decoded by", b"S"): [("decoded by", b"S")]
    }
    registry.unregister_serializer("my.str")
    assert registry.deserialize(registry.serialize({"k": ["x"]})) == {"k": ["x"]}


def test_overriding_tuple_applies_inside_lists():
    registry = serreg.Registry()
    registry.register_serializer("my.tuple", tuple, TaggedSerializer(b"T"))
    assert registry.deserialize(registry.serialize([(1, 2)])) == [("decoded by", b"T")]


def test_id_bound_to_another_class_is_refused():
    registry = serreg.Registry()
    registry.register_serializer("example.Point", Point, TaggedSerializer(b"p"))
    with pytest.raises(serreg.SerregError, match="already bound to .*Point"):
        registry.register_serializer("example.Point", dict, TaggedSerializer(b"d"))


def test_same_id_same_class_replaces_the_serializer():
    registry = serreg.Registry()
    registry.register_serializer("example.Point", Point, TaggedSerializer(b"1"))
    registry.register_serializer("example.Point", Point, TaggedSerializer(b"2"))
    assert registry.deserialize(registry.serialize(Point(0, 0))) == ("decoded by", b"2")
    registry.unregister_serializer("example.Point")
    with pytest.raises(serreg.UnknownClassIDError):
        registry.get_serializer("example.Point")


def test_hash_collision_is_refused(monkeypatch):
    from serreg._registry import table

    registry = serreg.Registry()
    monkeypatch.setattr(table, "class_id_hash", lambda class_id: b"\x01" * 8)
    registry.register_serializer("first", Point, TaggedSerializer(b"1"))
    with pytest.raises(serreg.SerregError, match="same ClassIDHash"):
        registry.register_serializer("second", Point, TaggedSerializer(b"2"))


def test_class_id_hash_is_sha256_prefix():
    import hashlib

    from serreg.wire.class_id import class_id_hash

    assert class_id_hash("ArrowTable") == hashlib.sha256(b"ArrowTable").digest()[:8]
    assert class_id_hash("dict").hex() == "6ab47d70854a8c69"  # docs/FORMAT.md, section 2


def test_bad_registrations_say_what_is_wrong():
    registry = serreg.Registry()
    with pytest.raises(TypeError, match="non-empty str"):
        registry.register_serializer("", Point, TaggedSerializer(b""))
    with pytest.raises(TypeError, match="must be a type"):
        registry.register_serializer("x", Point(1, 2), TaggedSerializer(b""))
    with pytest.raises(TypeError, match="serialize"):
        registry.register_serializer("x", Point, object())
    with pytest.raises(serreg.UnknownClassIDError):
        registry.unregister_serializer("never.registered")


def test_subclass_is_not_served_by_its_base_class_serializer():
    class SubPoint(Point):
        pass

    registry = serreg.Registry()
    registry.register_serializer("example.Point", Point, TaggedSerializer(b"p"))
    back = registry.deserialize(registry.serialize(SubPoint(1, 2)))
    assert type(back) is SubPoint and (back.x, back.y) == (1, 2)  # the fallback kept its type


def test_unknown_class_id_in_a_frame():
    registry = serreg.Registry()
    registry.register_serializer("example.Point", Point, TaggedSerializer(b"p"))
    frame = registry.serialize(Point(1, 2)).to_bytes()
    with pytest.raises(serreg.UnknownClassIDError, match="ClassIDHash"):
        serreg.Registry().deserialize(frame)


def test_registries_are_isolated():
    mine = serreg.Registry()
    mine.register_serializer("example.Point", Point, TaggedSerializer(b"p"))
    with pytest.raises(serreg.UnknownClassIDError):
        serreg.get_serializer("example.Point")


def test_register_callback_sees_registrations_and_removals():
    registry = serreg.Registry(fallback=False)
    calls = []

    class Fallback(serreg.Serializer):
        class_id = "test.fallback"

        def serialize(self, obj):
            return SerializationResult(repr(obj).encode())

        def deserialize(self, in_band_buffer, oob_iterator):
            return bytes(in_band_buffer).decode()

    registry.register_fallback_serializer(Fallback(), lambda *args: calls.append(args))
    assert ("int", int, registry.get_serializer(int)) in calls  # replayed at installation
    calls.clear()
    serializer = TaggedSerializer(b"p")
    registry.register_serializer("example.Point", Point, serializer)
    registry.unregister_serializer("example.Point")
    assert calls == [("example.Point", Point, serializer), (None, Point, None)]
    assert registry.deserialize(registry.serialize(Point(1, 2)).to_bytes()).startswith("<")
