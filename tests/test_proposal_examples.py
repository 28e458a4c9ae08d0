"""The examples of the Ray serialization proposal, with ``ray.`` replaced by ``serreg.``.

They use the default registry, so each test unregisters what it registers.
"""

import pickle
import struct
from typing import Iterator, List

import cloudpickle
import pytest

import serreg
from serreg import SerializationResult, Serializer


def to_bytes(n: int) -> bytes:
    return struct.pack("<Q", n)


def get_int(buffer, pos: int):
    return struct.unpack_from("<Q", buffer, pos)[0], pos + 8


class MyClass:
    def __init__(self, state: bytes):
        self.state = state
        self.transient_field = object()


class MyClassSerializer(Serializer):
    def serialize(self, instance: MyClass) -> SerializationResult:
        return SerializationResult(instance.state)

    def deserialize(self, in_band_buffer, oob_iterator: Iterator[memoryview]) -> MyClass:
        return MyClass(in_band_buffer.obj)


class ByteArraySerializer(Serializer):
    def serialize(self, byte_array: bytearray) -> SerializationResult:
        return SerializationResult(None, [memoryview(byte_array)])

    def deserialize(self, in_band_buffer, oob_iterator: Iterator[memoryview]) -> bytearray:
        return next(oob_iterator).obj


class ListSerializer(Serializer):
    def serialize(self, list_object: List[bytearray]) -> SerializationResult:
        result = SerializationResult()
        result.in_band_buffer = bytearray()
        result.in_band_buffer.extend(to_bytes(len(list_object)))
        for element in list_object:
            element_res = serreg.serialize(element)
            result.in_band_buffer.extend(to_bytes(len(element_res.in_band_buffer)))
            result.in_band_buffer.extend(element_res.in_band_buffer)
            result.out_of_band_buffers += element_res.out_of_band_buffers
        return result

    def deserialize(self, in_band_buffer, oob_iterator: Iterator[memoryview]) -> List[bytearray]:
        result = []
        pos = 0
        count, pos = get_int(in_band_buffer, pos)
        for i in range(count):
            element_size, pos = get_int(in_band_buffer, pos)
            element_in_band_data = in_band_buffer[pos : pos + element_size]
            pos = pos + element_size
            element = serreg.deserialize(element_in_band_data, oob_iterator)
            result.append(element)
        return result


@pytest.fixture
def registered():
    ids = []

    def register(class_id, cls, serializer):
        serreg.register_serializer(class_id, cls, serializer)
        ids.append(class_id)

    yield register
    for class_id in reversed(ids):
        try:
            serreg.unregister_serializer(class_id)
        except serreg.UnknownClassIDError:
            pass  # the test unregistered it itself


def test_in_band_example(registered):
    registered("MyClass", MyClass, MyClassSerializer())
    obj = MyClass(b"some state")
    back = serreg.deserialize(serreg.serialize(obj))
    assert isinstance(back, MyClass)
    assert back.state == b"some state"
    assert serreg.get_serializer("MyClass") is serreg.get_serializer(MyClass)


def test_out_of_band_example_shares_memory(registered):
    registered("example.bytearray", bytearray, ByteArraySerializer())
    b = bytearray(b"\x01\x02\x03")
    serialization_result = serreg.serialize(b)
    deserialized_bytes = serreg.deserialize(serialization_result)
    assert deserialized_bytes == b
    # "deserialized_bytes and b will be backed by the same memory"
    b[0] = 99
    assert deserialized_bytes[0] == 99


def test_nested_list_example(registered):
    registered("example.bytearray", bytearray, ByteArraySerializer())
    registered("example.List", list, ListSerializer())
    items = [bytearray(b"ab"), bytearray(b"cde"), bytearray()]
    result = serreg.serialize(items)
    assert len(result.out_of_band_buffers) == 3
    back = serreg.deserialize(result)
    assert back == items
    assert all(x is y for x, y in zip(back, items))  # the buffers were never copied

    # The example's `next(oob_iterator).obj` is only the original bytearray in-process
    # (from a frame it is the frame). With serreg's own bytearray serializer the
    # nested list also crosses a frame, buffers in order.
    serreg.unregister_serializer("example.bytearray")
    framed = serreg.deserialize(serreg.serialize(items).to_bytes())
    assert framed == items and all(type(x) is bytearray for x in framed)


class Pickle5FallbackSerializer(Serializer):
    """The proposal's fallback, written as there, plus the registration callback."""

    def __init__(self):
        self.dispatch = {}

    def serialize(self, instance) -> SerializationResult:
        pickle_oob_buffers = []
        pickler_dispatch = self.dispatch

        class Pickler(cloudpickle.Pickler):
            def reducer_override(self, obj):
                if type(obj) in pickler_dispatch:
                    return pickler_dispatch[type(obj)](obj)
                return super().reducer_override(obj)

        import io

        file = io.BytesIO()
        Pickler(file, protocol=5, buffer_callback=pickle_oob_buffers.append).dump(instance)
        return SerializationResult(file.getvalue(), [b.raw() for b in pickle_oob_buffers])

    def deserialize(self, in_band_buffer, oob_iterator):
        return pickle.loads(in_band_buffer, buffers=list(oob_iterator))


def _deserialize_wrapper(class_name, in_band, *pickle_oob_buffers):
    serializer = serreg.get_serializer(class_name)
    return serializer.deserialize(memoryview(in_band), iter([memoryview(b) for b in pickle_oob_buffers]))


def make_register_to_pickle5(fallback: Pickle5FallbackSerializer):
    def register_to_pickle5(class_name, class_type, serializer):
        if serializer is None:
            fallback.dispatch.pop(class_type, None)
            return

        def _serialize_wrapper(obj):
            ray_result = serializer.serialize(obj)
            pickle_oob_buffers = [pickle.PickleBuffer(b) for b in ray_result.out_of_band_buffers]
            return _deserialize_wrapper, (class_name, bytes(ray_result.in_band_buffer or b""), *pickle_oob_buffers)

        fallback.dispatch[class_type] = _serialize_wrapper

    return register_to_pickle5


class Holder:
    def __init__(self, payload):
        self.payload = payload


def test_pickle5_fallback_example_with_register_callback(registered):
    registry = serreg.Registry(fallback=False)
    fallback = Pickle5FallbackSerializer()
    registry.register_fallback_serializer(fallback, make_register_to_pickle5(fallback))
    seen = []

    class Tracking(MyClassSerializer):
        def serialize(self, instance):
            seen.append(instance)
            return super().serialize(instance)

    registry.register_serializer("MyClass", MyClass, Tracking())
    registered("MyClass", MyClass, Tracking())  # the wrapper looks the ID up in the default registry
    inner = MyClass(b"inside a pickle")
    result = registry.serialize(Holder(inner))
    assert b"MyClass" in bytes(result.in_band_buffer)  # the pickle calls the registered wrapper by class ID
    back = registry.deserialize(result.to_bytes())
    assert isinstance(back, Holder) and back.payload.state == b"inside a pickle"
    assert seen == [inner]
