"""Registering as in Ray or Dask: two functions, a class decorator, serializers returning plain bytes."""

from __future__ import annotations

import json

import msgpack
import numpy as np
import pytest

import serreg
from serreg import SerializationResult, Serializer
from serreg.serializer import FunctionSerializer


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return type(other) is Point and (self.x, self.y) == (other.x, other.y)


def _round_trips(registry, value):
    """The value back from the in-process result, from a frame, and nested in a dict and a pickled object."""
    back = registry.deserialize(registry.serialize(value))
    from_frame = registry.deserialize(registry.serialize(value).to_bytes())
    nested = registry.deserialize(registry.serialize({"v": [value, value]}).to_bytes())["v"]
    return back, from_frame, nested


def test_register_serializer_with_two_functions_returning_plain_bytes():
    registry = serreg.Registry()
    registry.register_serializer(
        "test.Point", Point,
        serialize=lambda p: msgpack.packb([p.x, p.y]),
        deserialize=lambda in_band: Point(*msgpack.unpackb(in_band)),
    )
    back, from_frame, nested = _round_trips(registry, Point(1, 2))
    assert back == from_frame == Point(1, 2) and nested == [Point(1, 2), Point(1, 2)]
    assert type(registry.get_serializer("test.Point")) is FunctionSerializer
    # The frame says the value was written by the function serializer's class ID.
    frame = registry.serialize(Point(3, 4)).to_bytes()
    other = serreg.Registry()
    other.register_serializer("test.Point", Point, serialize=lambda p: b"", deserialize=lambda b: ("other", bytes(b)))
    assert other.deserialize(frame) == ("other", msgpack.packb([3, 4]))


def test_deserialize_with_two_parameters_gets_the_out_of_band_buffers():
    class Grid:
        def __init__(self, name, cells):
            self.name, self.cells = name, cells

    def serialize(grid):
        return SerializationResult(grid.name.encode(), [memoryview(grid.cells)])

    def deserialize(in_band, buffers):
        return Grid(bytes(in_band).decode(), np.frombuffer(next(buffers), dtype=np.int64))

    registry = serreg.Registry()
    registry.register_serializer("test.Grid", Grid, serialize=serialize, deserialize=deserialize)
    grid = Grid("g", np.arange(10, dtype=np.int64))
    result = registry.serialize(grid)
    assert len(result.out_of_band_buffers) == 1
    back = registry.deserialize(result)
    assert back.name == "g" and np.shares_memory(back.cells, grid.cells)  # in-process: zero-copy
    from_frame = registry.deserialize(result.to_bytes())
    assert from_frame.name == "g" and from_frame.cells.tolist() == list(range(10))


def test_a_one_argument_deserialize_refuses_out_of_band_buffers_with_a_clear_error():
    registry = serreg.Registry()
    registry.register_serializer(
        "test.Point", Point,
        serialize=lambda p: SerializationResult(b"x", [memoryview(b"buffer")]),
        deserialize=lambda in_band: Point(0, 0),
    )
    with pytest.raises(serreg.SerializationError, match="second parameter") as caught:
        registry.serialize({"p": Point(1, 2)})
    assert caught.value.path == 'obj["p"]'


def test_bad_registrations_are_refused_before_anything_is_registered():
    registry = serreg.Registry()
    with pytest.raises(TypeError, match="serialize= and deserialize="):
        registry.register_serializer("test.Point", Point, serialize=lambda p: b"")
    with pytest.raises(TypeError, match="not both"):
        registry.register_serializer("test.Point", Point, FunctionSerializer(bytes, bytes), serialize=lambda p: b"")
    with pytest.raises(TypeError, match="1 or 2 positional arguments"):
        registry.register_serializer("test.Point", Point, serialize=lambda p: b"", deserialize=lambda: None)
    with pytest.raises(TypeError, match="must be a function"):
        registry.register_serializer("test.Point", Point, serialize=b"", deserialize=lambda b: None)
    with pytest.raises(serreg.UnknownClassIDError):
        registry.get_serializer("test.Point")


def test_a_serializer_returning_something_else_names_what_it_returned():
    registry = serreg.Registry()
    registry.register_serializer("test.Point", Point, serialize=lambda p: [p.x, p.y], deserialize=lambda b: None)
    with pytest.raises(serreg.SerializationError, match="returned list, not a SerializationResult or bytes"):
        registry.serialize(Point(1, 2))


def test_a_serializer_class_may_return_plain_bytes_from_serialize_and_serialize_canonical():
    class PointSerializer(Serializer):
        def serialize(self, p):
            return bytearray(msgpack.packb([p.x, p.y]))

        def serialize_canonical(self, p):
            return memoryview(msgpack.packb([float(p.x), float(p.y)]))

        def deserialize(self, in_band_buffer, oob_iterator):
            return Point(*msgpack.unpackb(in_band_buffer))

    registry = serreg.Registry()
    registry.register_serializer("test.Point", Point, PointSerializer())
    back, from_frame, nested = _round_trips(registry, Point(1, 2))
    assert back == from_frame == Point(1, 2) and nested == [Point(1, 2)] * 2
    assert registry.deserialize(registry.serialize(Point(1, 2), canonical=True)) == Point(1.0, 2.0)
    assert registry.digest(Point(1, 2)) == registry.digest(Point(1.0, 2.0))


def test_a_registered_value_inside_a_pickled_object_may_return_plain_bytes():
    class Holder:  # no serializer: the pickle fallback, which hands the Point to its serializer
        def __init__(self, point):
            self.point = point

    registry = serreg.Registry()
    calls = []

    def serialize(p):
        calls.append(p)
        return msgpack.packb([p.x, p.y])

    registry.register_serializer("test.Point", Point, serialize=serialize,
                                 deserialize=lambda b: Point(*msgpack.unpackb(b)))
    back = registry.deserialize(registry.serialize(Holder(Point(5, 6))).to_bytes())
    assert back.point == Point(5, 6) and calls == [Point(5, 6)]


def test_decorator_with_functions_on_the_value_class():
    registry = serreg.Registry()

    @registry.register("test.Temperature", serialize=lambda t: json.dumps(t.celsius).encode(),
                       deserialize=lambda b: Temperature(json.loads(bytes(b))))
    class Temperature:
        def __init__(self, celsius):
            self.celsius = celsius

    assert isinstance(Temperature, type)  # the decorator returns the class itself
    assert registry.deserialize(registry.serialize(Temperature(21.5)).to_bytes()).celsius == 21.5


def test_decorator_on_a_class_that_serializes_itself():
    registry = serreg.Registry()

    @registry.register("test.Money")
    class Money:
        def __init__(self, cents, currency):
            self.cents, self.currency = cents, currency

        def serialize(self):
            return msgpack.packb([self.cents, self.currency])

        @classmethod
        def deserialize(cls, in_band):
            return cls(*msgpack.unpackb(in_band))

    back = registry.deserialize(registry.serialize([Money(250, "EUR")]).to_bytes())[0]
    assert (type(back), back.cents, back.currency) == (Money, 250, "EUR")

    with pytest.raises(TypeError, match="classmethod or staticmethod"):
        @registry.register("test.Broken")
        class Broken:
            def serialize(self):
                return b""

            def deserialize(self, in_band):  # an instance method cannot make the instance
                return None


def test_decorator_on_a_serializer_class_and_the_module_level_twins():
    class Celsius(float):
        pass

    @serreg.register("test.Celsius", Celsius)
    class CelsiusSerializer(Serializer):
        def serialize(self, value):
            return msgpack.packb(float(value))

        def deserialize(self, in_band_buffer, oob_iterator):
            return Celsius(msgpack.unpackb(in_band_buffer))

    try:
        assert type(serreg.get_serializer(Celsius)) is CelsiusSerializer
        back = serreg.deserialize(serreg.serialize(Celsius(3.5)).to_bytes())
        assert type(back) is Celsius and back == 3.5
        serreg.register_serializer("test.Celsius", Celsius, serialize=lambda c: msgpack.packb(float(c)),
                                   deserialize=lambda b: Celsius(msgpack.unpackb(b) + 1))
        assert serreg.deserialize(serreg.serialize(Celsius(3.5))) == 4.5
    finally:
        serreg.unregister_serializer("test.Celsius")
    with pytest.raises(TypeError, match="not both"):
        serreg.register("test.Celsius", Celsius, serialize=bytes)(CelsiusSerializer)
