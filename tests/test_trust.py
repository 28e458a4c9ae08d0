"""Untrusted mode: no pickle, only allow-listed class IDs, refused before anything is unpickled."""

import msgpack
import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg import DeserializationError, UntrustedClassIDError
from serreg.wire.class_id import class_id_hash

UNPICKLED = []


def _record_unpickling(tag):
    UNPICKLED.append(tag)
    return tag


class Tripwire:
    """Unpickling one of these records that it happened (as hostile code would run)."""

    def __init__(self, tag):
        self.tag = tag

    def __reduce__(self):
        return (_record_unpickling, (self.tag,))


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return type(other) is Point and (self.x, self.y) == (other.x, other.y)


class PointSerializer(serreg.Serializer):
    def serialize(self, p):
        return serreg.SerializationResult(msgpack.packb([p.x, p.y]))

    def deserialize(self, in_band, oob):
        return Point(*msgpack.unpackb(in_band))


@pytest.fixture(autouse=True)
def clear_tripwires():
    UNPICKLED.clear()
    yield
    UNPICKLED.clear()


@pytest.mark.parametrize("where", ["top", "in dict", "in tuple in list", "in set"])
def test_pickle_is_refused_before_anything_is_unpickled(where):
    wire = Tripwire(where)
    value = {
        "top": wire,
        "in dict": {"a": 1, "b": wire},
        "in tuple in list": [1, (2, wire)],
        "in set": {1, frozenset({2, wire.tag}), (wire,)},
    }[where]
    frame = serreg.serialize(value).to_bytes()
    assert serreg.deserialize(frame) is not None and UNPICKLED  # trusted: it really is unpickled
    UNPICKLED.clear()
    with pytest.raises(UntrustedClassIDError) as caught:
        serreg.deserialize(frame, trusted=False)
    assert UNPICKLED == []
    message = str(caught.value)
    assert "serreg.pickle5" in message and "trusted=True" in message and "runs code" in message
    assert caught.value.class_id == "serreg.pickle5"


def test_pickle_in_the_in_process_result_is_refused_too():
    result = serreg.serialize([Tripwire("r")])
    with pytest.raises(UntrustedClassIDError):
        serreg.deserialize(result, trusted=False)
    assert UNPICKLED == []


def test_registry_wide_untrusted_setting_and_per_call_override():
    registry = serreg.Registry(trusted=False)
    frame = registry.serialize({"w": Tripwire("x")}).to_bytes()
    with pytest.raises(UntrustedClassIDError):
        registry.deserialize(frame)
    assert UNPICKLED == []
    assert registry.deserialize(frame, trusted=True) == {"w": "x"}
    trusting = serreg.Registry()
    with pytest.raises(UntrustedClassIDError):
        trusting.deserialize(frame, trusted=False)


def test_standard_numpy_and_arrow_values_are_allowed():
    value = {"a": (1, 2.5, "x", b"y", None), "n": np.arange(4), "s": np.int8(3), "t": pa.table({"x": [1, 2]}),
             "d": {frozenset({1}), complex(1, 2)}}
    back = serreg.deserialize(serreg.serialize(value).to_bytes(), trusted=False)
    assert back["a"] == value["a"] and back["t"].equals(value["t"]) and back["d"] == value["d"]


def test_user_class_ids_need_to_be_allowed():
    registry = serreg.Registry(trusted=False)
    registry.register_serializer("example.Point", Point, PointSerializer())
    frame = registry.serialize([Point(1, 2)]).to_bytes()
    with pytest.raises(UntrustedClassIDError) as caught:
        registry.deserialize(frame)
    message = str(caught.value)
    assert "example.Point" in message and "allow_class_ids('example.Point')" in message
    registry.allow_class_ids("example.Point")
    assert registry.deserialize(frame) == [Point(1, 2)]
    assert "example.Point" in registry.allowed_class_ids


def test_an_unregistered_class_id_is_refused_without_loading_anything():
    inner = msgpack.ExtType(0, class_id_hash("evil.Thing") + b"\xc0")
    frame = serreg.SerializationResult(class_id_hash("list") + msgpack.packb([inner])).to_bytes()
    with pytest.raises(UntrustedClassIDError) as caught:
        serreg.deserialize(frame, trusted=False)
    assert class_id_hash("evil.Thing").hex() in str(caught.value)


def test_the_pickle_fallback_cannot_be_allowed():
    registry = serreg.Registry()
    with pytest.raises(ValueError, match="trusted=True"):
        registry.allow_class_ids("serreg.pickle5")
    with pytest.raises(ValueError):
        serreg.Registry(allowed_class_ids={"serreg.pickle5"})

    class OtherFallback:
        class_id = "example.fallback"

        def serialize(self, value):
            return serreg.SerializationResult(b"")

        def deserialize(self, in_band, oob):
            return None

    registry.allow_class_ids("example.fallback")
    with pytest.raises(serreg.SerregError, match="allow-list"):
        registry.register_fallback_serializer(OtherFallback())


def test_a_restricted_allow_list():
    registry = serreg.Registry(trusted=False, allowed_class_ids={"list", "int"})
    assert registry.deserialize(registry.serialize([1, 2]).to_bytes()) == [1, 2]
    with pytest.raises(UntrustedClassIDError):
        registry.deserialize(registry.serialize([(1,)]).to_bytes())


def test_a_serializer_that_deserializes_nested_values_itself_stays_untrusted():
    registry = serreg.Registry()

    class Box:
        def __init__(self, inner):
            self.inner = inner

    class BoxSerializer(serreg.Serializer):
        """The proposal's pattern: a nested serialize() result inside its own in-band."""

        def serialize(self, box):
            nested = registry.serialize(box.inner)
            return serreg.SerializationResult(bytes(nested.in_band_buffer), nested.out_of_band_buffers)

        def deserialize(self, in_band, oob):
            return Box(registry.deserialize(in_band, oob, trusted=True))  # cannot widen the outer call

    registry.register_serializer("example.Box", Box, BoxSerializer())
    registry.allow_class_ids("example.Box")
    frame = registry.serialize(Box(Tripwire("boxed"))).to_bytes()
    with pytest.raises(UntrustedClassIDError):
        registry.deserialize(frame, trusted=False)
    assert UNPICKLED == []
    assert registry.deserialize(frame).inner == "boxed"


def test_refusal_is_a_deserialization_error():
    assert issubclass(UntrustedClassIDError, DeserializationError)


def test_dataclass_frames_are_refused_before_any_module_is_imported():
    registry = serreg.Registry()
    frame = serreg.SerializationResult(
        class_id_hash("serreg.dataclass") + msgpack.packb(["no_such_module_imported_here:Thing", {}])
    ).to_bytes()
    with pytest.raises(UntrustedClassIDError, match="imports"):
        registry.deserialize(frame, trusted=False)
    with pytest.raises(DeserializationError, match="cannot import"):
        registry.deserialize(frame)  # trusted: it does try to import
    with pytest.raises(ValueError, match="cannot be allowed"):
        registry.allow_class_ids("serreg.dataclass")


def test_java_allow_list_is_pythons():
    """Java's default allow-list (serreg.Trust) names exactly Python's DATA_CLASS_IDS."""
    import re
    from pathlib import Path

    from serreg.standard import DATA_CLASS_IDS

    source = (Path(__file__).parent.parent / "java-compat/serreg-core/src/main/java/serreg/Trust.java").read_text()
    block = source[source.index("DATA_CLASS_IDS = Set.of("):]
    block = block[: block.index(");")]
    assert set(re.findall(r'"([^"]+)"', block)) == set(DATA_CLASS_IDS)
