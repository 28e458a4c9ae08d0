"""The standard serreg.dataclass serializer (opt-in): what pickle keeps, without pickle."""

import dataclasses
import pickle
import sys

import numpy as np
import pytest

import serreg
from pickling import pickling_registry
from serreg.result import with_class_hash
from serreg.wire.class_id import class_id_hash

DATACLASS = class_id_hash("serreg.dataclass")
PICKLE5 = class_id_hash("serreg.pickle5")


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: str = "p"
    tags: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Frozen:
    name: str
    values: tuple


@dataclasses.dataclass
class Outer:
    inner: Point
    weights: np.ndarray


@dataclasses.dataclass
class Base:
    a: int


@dataclasses.dataclass
class Derived(Base):
    b: int


@dataclasses.dataclass(slots=True)
class Slotted:
    a: int


@dataclasses.dataclass
class CustomReduce:
    a: int

    def __reduce__(self):
        return (CustomReduce, (self.a + 0,))


@dataclasses.dataclass
class CustomState:
    a: int

    def __getstate__(self):
        return {"a": self.a}


class Namespace:
    @dataclasses.dataclass
    class Nested:
        a: int


@pytest.fixture(autouse=True)
def dataclasses_on():
    serreg.configure_dataclasses()
    yield
    serreg.configure_dataclasses(enabled=False)


def class_hash_of(value) -> bytes:
    return bytes(serreg.serialize(value).in_band_buffer)[:8]


def test_off_by_default_but_always_readable():
    registry = pickling_registry()
    assert bytes(registry.serialize(Point(1, 2.0)).in_band_buffer)[:8] == PICKLE5
    frame = serreg.serialize([Point(1, 2.0)]).to_bytes()  # written by the default registry, switched on
    assert registry.deserialize(frame) == [Point(1, 2.0)]
    serreg.configure_dataclasses(registry)
    assert bytes(registry.serialize(Point(1, 2.0)).in_band_buffer)[:8] == DATACLASS
    serreg.configure_dataclasses(registry, enabled=False)
    assert bytes(registry.serialize(Point(1, 2.0)).in_band_buffer)[:8] == PICKLE5


@pytest.mark.parametrize("value", [
    Point(1, 2.5, "a", ["x", "y"]),
    Frozen("f", (1, 2)),
    Derived(1, 2),
    Namespace.Nested(3),
    [Point(i, i / 2) for i in range(5)],
    {"points": (Point(1, 1.0), Frozen("z", ()))},
])
def test_round_trip_is_type_exact_in_process_and_from_a_frame(value):
    for back in (serreg.deserialize(serreg.serialize(value)), serreg.deserialize(serreg.serialize(value).to_bytes())):
        assert back == value
        assert type(back) is type(value)
        if isinstance(value, list):
            assert all(type(b) is type(v) for b, v in zip(back, value))


def test_dataclasses_use_the_standard_serializer_not_pickle():
    assert class_hash_of(Point(1, 2.0)) == DATACLASS
    assert b"tests" not in bytes(serreg.serialize(1).in_band_buffer)
    in_band = bytes(serreg.serialize(Point(1, 2.0)).in_band_buffer)
    assert f"{Point.__module__}:Point".encode() in in_band


def test_extra_attributes_are_kept_as_pickle_keeps_them():
    point = Point(1, 2.0)
    point.note = "added later"
    back = serreg.deserialize(serreg.serialize(point).to_bytes())
    assert back.note == "added later" and vars(back) == vars(pickle.loads(pickle.dumps(point)))


def test_frozen_dataclass_comes_back_frozen():
    back = serreg.deserialize(serreg.serialize(Frozen("f", (1,))).to_bytes())
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.name = "other"


def test_registered_values_inside_keep_their_serializers_and_buffers():
    value = Outer(Point(1, 2.0), np.arange(100_000.0))
    result = serreg.serialize(value)
    assert bytes(result.in_band_buffer)[:8] == DATACLASS
    assert sum(b.nbytes for b in result.out_of_band_buffers) == value.weights.nbytes
    back = serreg.deserialize(result)
    assert np.shares_memory(back.weights, value.weights) and back.inner == value.inner


@pytest.mark.parametrize("value", [Slotted(1), CustomReduce(1), CustomState(1)])
def test_dataclasses_that_pickle_differently_go_to_the_fallback(value):
    assert class_hash_of(value) == PICKLE5
    back = serreg.deserialize(serreg.serialize(value).to_bytes())
    assert back == value and type(back) is type(value)


def test_dataclass_defined_in_a_function_goes_to_the_fallback_or_implicit_structs():
    @dataclasses.dataclass
    class Local:
        a: int

    # Not serreg.dataclass (it could not be imported by name): an implicit struct whose class
    # travels by value (docs/FORMAT.md 10.9), or the pickle when those are off.
    assert class_hash_of(Local(1)) == class_id_hash("serreg.pyobjects")
    assert serreg.deserialize(serreg.serialize(Local(1))).a == 1
    pickling = pickling_registry()
    serreg.configure_dataclasses(pickling)
    assert pickling.serialize(Local(1)).in_band_buffer[:8] == PICKLE5
    assert pickling.deserialize(pickling.serialize(Local(1))).a == 1


def test_cross_language_still_refuses_dataclasses():
    with pytest.raises(serreg.CrossLanguageError) as info:
        serreg.serialize({"p": [Point(1, 2.0)]}, cross_language=True)
    assert info.value.path == 'obj["p"][0]'


def test_a_registered_serializer_for_the_class_wins():
    registry = pickling_registry()
    serreg.configure_dataclasses(registry)

    class PointSerializer(serreg.Serializer):
        def serialize(self, point):
            return serreg.SerializationResult(f"{point.x},{point.y}".encode())

        def deserialize(self, in_band_buffer, oob_iterator):
            x, y = bytes(in_band_buffer).decode().split(",")
            return Point(int(x), float(y))

    registry.register_serializer("example.Point", Point, PointSerializer())
    assert bytes(registry.serialize(Point(1, 2.0)).in_band_buffer)[:8] == class_id_hash("example.Point")


def test_unregistering_it_sends_dataclasses_to_the_fallback():
    registry = pickling_registry()
    serreg.configure_dataclasses(registry)
    registry.unregister_serializer("serreg.dataclass")
    assert bytes(registry.serialize(Point(1, 2.0)).in_band_buffer)[:8] == PICKLE5
    assert registry.deserialize(registry.serialize(Point(1, 2.0)).to_bytes()) == Point(1, 2.0)
    with pytest.raises(serreg.SerregError):
        serreg.configure_dataclasses(registry)


def test_a_frame_naming_something_else_is_refused():
    registry = serreg.default_registry()
    codec = registry.codec
    for reference, state in [
        ("os:system", {}),  # not a dataclass: never called or instantiated
        (f"{__name__}:CustomReduce", {"a": 1}),  # a dataclass that pickles differently
        ("no_such_module_for_serreg:Point", {}),
        ("no colon", {}),
        (f"{__name__}:Point", [1, 2]),
    ]:
        frame = with_class_hash(DATACLASS, codec.pack([reference, state], []), []).to_bytes()
        with pytest.raises(serreg.DeserializationError):
            serreg.deserialize(frame)
    assert "no_such_module_for_serreg" not in sys.modules


# A frame written by serreg.dataclass before cross-language structs existed (the last commit
# before them, pure codec, default registry with configure_dataclasses() on) of the value below.
BEFORE_STRUCTS = bytes.fromhex(
    "53524547010000000100000000000000c8010000000000000c0200000000000000020000000000000c000000000000006ab4"
    "7d70854a8c6985a6706f696e747392c73f0075c5450665f5d80092b4746573745f64617461636c6173733a506f696e7484a1"
    "7801a179cb4004000000000000a56c6162656ca161a47461677392a178a179c73b0075c5450665f5d80092b4746573745f64"
    "617461636c6173733a506f696e7484a178fea179cb3fe0000000000000a56c6162656ca170a47461677390a666726f7a656e"
    "c73c0075c5450665f5d80092b5746573745f64617461636c6173733a46726f7a656e82a46e616d65a166a676616c756573c7"
    "0b00fb2c3dcbe52aa287920102a56f75746572c77f0075c5450665f5d80092b4746573745f64617461636c6173733a4f7574"
    "657282a5696e6e6572c73b0075c5450665f5d80092b4746573745f64617461636c6173733a506f696e7484a17803a179cb40"
    "08000000000000a56c6162656ca170a47461677390a777656967687473c711003ef346082463cfb693a33c69329106a143a7"
    "64657269766564c7270075c5450665f5d80092b6746573745f64617461636c6173733a4465726976656482a16101a16202a6"
    "6e6573746564c72d0075c5450665f5d80092bf746573745f64617461636c6173733a4e616d6573706163652e4e6573746564"
    "81a161030000000000000000000001000200030004000500"
)


def _before_structs_value():
    return {"points": [Point(1, 2.5, "a", ["x", "y"]), Point(-2, 0.5)], "frozen": Frozen("f", (1, 2)),
            "outer": Outer(Point(3, 3.0), np.arange(6, dtype=np.int16)), "derived": Derived(1, 2),
            "nested": Namespace.Nested(3)}


def _same(back, value):
    assert back.keys() == value.keys()
    for key in value:
        if key == "outer":
            assert back[key].inner == value[key].inner and type(back[key].inner) is Point
            assert np.array_equal(back[key].weights, value[key].weights) and back[key].weights.dtype == np.int16
        else:
            assert back[key] == value[key] and type(back[key]) is type(value[key])


def test_frames_written_before_structs_still_decode_and_are_written_the_same():
    value = _before_structs_value()
    _same(pickling_registry().deserialize(BEFORE_STRUCTS), value)  # reading needs no configure_dataclasses
    assert serreg.serialize(value).to_bytes() == BEFORE_STRUCTS  # the writer is unchanged too
    with pytest.raises(serreg.UntrustedClassIDError, match="serreg.dataclass"):
        pickling_registry().deserialize(BEFORE_STRUCTS, trusted=False)


def test_frames_written_before_structs_decode_where_the_class_is_now_a_struct():
    registry = pickling_registry()
    registry.register_struct(Point, "legacy.Point")  # declared a struct since: new frames differ, old ones read
    _same(registry.deserialize(BEFORE_STRUCTS), _before_structs_value())
    assert registry.serialize(Point(1, 2.5)).to_bytes() != serreg.serialize(Point(1, 2.5)).to_bytes()
