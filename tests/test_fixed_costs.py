"""The per-call shortcuts of serialize, deserialize and to_bytes change nothing anyone can see.

With the compiled codec, ``Registry.serialize`` and ``deserialize`` are C
methods (``top_method``) that call the codec before any Python frame, find the
registry's codec again from a cache, read the registry's table and limits at
their slot offsets and keep what they parsed between calls; ``to_bytes``
writes the frame of a result without key or buffers in C. Each test here
changes one thing those caches remember (a registration, trust, limits, the
registry called, the result's parts) between two calls and checks that the
next call sees it. The module runs on both codecs (with
``SERREG_PURE_PYTHON=1`` the methods are the Python ones).
"""

from __future__ import annotations

import inspect
import pickle
import types

import pytest

import serreg
from serreg.codec import COMPILED
from serreg.result import SerializationResult, python_to_bytes
from serreg.wire.frame import join_frame

KEY = b"k" * 32
VALUE = {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": True}


class Tagged:
    """Writes a mark, to see which serializer ran."""

    def serialize(self, obj):
        return b"T" + repr(obj).encode()

    def deserialize(self, in_band, oob):
        return ("tagged", bytes(in_band[1:]).decode())


def _bare(signature: inspect.Signature) -> inspect.Signature:
    """The signature without annotations (all a builtin's text signature can say)."""
    return signature.replace(
        parameters=[p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()],
        return_annotation=inspect.Signature.empty,
    )


def test_the_methods_keep_their_signature_doc_and_name():
    for name in ("serialize", "deserialize"):
        method = getattr(serreg.Registry, name)
        python = getattr(method, "__wrapped__", method)
        python_bound = python.__get__(serreg.default_registry())
        assert inspect.signature(method) == inspect.signature(python)  # the class's: annotated
        bound = getattr(serreg, name)
        assert _bare(inspect.signature(bound)) == _bare(inspect.signature(python_bound))
        assert bound.__self__ is serreg.default_registry() and bound.__name__ == name
        assert bound.__doc__ == python.__doc__ and bound.__qualname__ == f"Registry.{name}"
        assert bound.__module__ == "serreg.registry"
        assert method.__doc__ == python.__doc__ and method.__doc__
        assert method.__name__ == name and method.__qualname__ == f"Registry.{name}"
        assert pickle.loads(pickle.dumps(method)) is method
        if COMPILED:  # bound, a builtin method: the interpreter calls it directly
            assert type(bound) is types.BuiltinMethodType
            assert type(serreg.Registry().serialize) is types.BuiltinMethodType
    assert serreg.SerializationResult.to_bytes.__doc__.startswith("Return the contiguous frame")
    assert serreg.SerializationResult.to_bytes.__doc__ == python_to_bytes.__doc__
    assert serreg.SerializationResult.to_bytes.__qualname__ == "SerializationResult.to_bytes"
    assert list(inspect.signature(serreg.SerializationResult.to_bytes).parameters) == ["self"]
    assert pickle.loads(pickle.dumps(serreg.SerializationResult.to_bytes)) is serreg.SerializationResult.to_bytes
    if COMPILED:
        assert type(serreg.Registry.serialize).__name__ == "TopMethod"
        assert type(serreg.SerializationResult.to_bytes) is types.MethodDescriptorType  # called without a frame


def test_registrations_take_effect_between_calls_of_two_registries():
    tagged, plain = serreg.Registry(), serreg.Registry()
    before = tagged.serialize(VALUE).to_bytes()
    assert plain.serialize(VALUE).to_bytes() == before
    tagged.register_serializer("test.dict", dict, Tagged())
    for _ in range(3):  # calls alternate between the registries: each its own codec and table
        assert tagged.deserialize(tagged.serialize(VALUE)) == ("tagged", repr(VALUE))
        assert plain.serialize(VALUE).to_bytes() == before
        assert plain.deserialize(before) == VALUE
        assert tagged.deserialize(before) == VALUE  # the standard ID still reads
    tagged.unregister_serializer("test.dict")
    assert tagged.serialize(VALUE).to_bytes() == before


def test_trust_and_limits_flipped_between_calls():
    registry = serreg.Registry(allowed_class_ids=())
    frame = registry.serialize(VALUE).to_bytes()
    for _ in range(2):
        assert registry.deserialize(frame) == VALUE
        registry.trusted = False
        with pytest.raises(serreg.UntrustedClassIDError):
            registry.deserialize(frame)
        with pytest.raises(serreg.UntrustedClassIDError):
            registry.deserialize(registry.serialize(VALUE))
        registry.trusted = True
        assert registry.deserialize(frame) == VALUE
        registry.limits = serreg.Limits(max_frame_size=len(frame) - 1)
        with pytest.raises(serreg.LimitExceededError):
            registry.deserialize(frame)
        registry.limits = serreg.Limits(max_frame_size=len(frame))  # a new tuple, read again
        assert registry.deserialize(frame) == VALUE
        nested = registry.serialize({"a": (1, 2)})  # the tuple is a nested value: depth 2
        registry.limits = serreg.Limits(max_depth=1)
        for data in (nested, nested.to_bytes()):
            with pytest.raises(serreg.LimitExceededError):
                registry.deserialize(data)
        assert registry.deserialize(frame) == VALUE
        registry.limits = serreg.Limits()


def test_a_codec_given_to_another_registry_is_not_called_for_it():
    first, second = serreg.Registry(), serreg.Registry()
    first.register_serializer("test.dict", dict, Tagged())
    second.codec = first.codec  # the methods call second's own paths, as the Python methods do
    assert second.deserialize(second.serialize(VALUE)) == VALUE
    assert second.deserialize(second.serialize(VALUE).to_bytes()) == VALUE
    assert first.deserialize(first.serialize(VALUE)) == ("tagged", repr(VALUE))


def test_options_keywords_and_wrong_calls_go_to_the_python_method():
    registry = serreg.Registry()
    assert registry.deserialize(registry.serialize(obj=VALUE)) == VALUE
    assert registry.deserialize(data=registry.serialize(VALUE).to_bytes()) == VALUE
    signed = registry.serialize(VALUE, key=KEY)
    assert signed.signed and registry.deserialize(signed.to_bytes(), key=KEY) == VALUE
    with pytest.raises(serreg.SignatureError):
        registry.deserialize(registry.serialize(VALUE).to_bytes(), key=KEY)
    for call in (lambda: registry.serialize(), lambda: registry.serialize(1, 2), lambda: registry.deserialize()):
        with pytest.raises(TypeError, match="argument"):
            call()
    with pytest.raises(TypeError, match="unexpected keyword"):
        registry.serialize(VALUE, bogus=True)
    assert serreg.Registry.serialize(registry, VALUE).to_bytes() == registry.serialize(VALUE).to_bytes()


def test_a_subclass_overriding_the_methods_is_called():
    class Counting(serreg.Registry):
        calls = 0

        def serialize(self, obj, **options):
            Counting.calls += 1
            return super().serialize(obj, **options)

    registry = Counting()
    assert registry.deserialize(registry.serialize(VALUE)) == VALUE
    assert Counting.calls == 1


def test_an_error_of_the_full_path_is_raised_as_before():
    registry = serreg.Registry()
    with pytest.raises(serreg.SerializationError) as fast:
        registry.serialize({"a": ["\ud800"]})
    with pytest.raises(serreg.SerializationError) as full:
        registry.serialize({"a": ["\ud800"]}, cross_language=True)
    assert str(fast.value) == str(full.value) and fast.value.path
    with pytest.raises(serreg.DeserializationError) as caught:
        registry.deserialize(registry.serialize(VALUE).to_bytes()[:-1])
    assert caught.value.offset is not None


def _expected_frame(result: SerializationResult) -> bytes:
    parts = [p for p in (result.in_band_buffer,) if p is not None]
    return join_frame(parts, [memoryview(b).cast("B") for b in result.out_of_band_buffers])


def test_to_bytes_follows_every_change_of_the_result():
    registry = serreg.Registry()
    result = registry.serialize(VALUE)
    frame = result.to_bytes()
    assert frame == _expected_frame(registry.serialize(VALUE))
    result.in_band_buffer  # joins the ClassIDHash into the in-band: the frame is the same
    assert result.to_bytes() == frame
    result.out_of_band_buffers.append(memoryview(b"buffer"))
    assert result.to_bytes() == _expected_frame(result) != frame
    result.out_of_band_buffers = []
    assert result.to_bytes() == frame
    result.in_band_buffer = bytearray(result.in_band_buffer)  # not bytes: read through the buffer protocol
    assert result.to_bytes() == frame
    signed = registry.serialize(VALUE, key=KEY)
    assert signed.to_bytes() != frame and registry.deserialize(signed.to_bytes(), key=KEY) == VALUE
    assert SerializationResult(b"abc").to_bytes() == join_frame([b"abc"], [])
    assert SerializationResult(None).to_bytes() == join_frame([], [])

    class Mine(SerializationResult):
        __slots__ = ("extra",)

    mine = Mine(b"xyz")
    assert mine.to_bytes() == join_frame([b"xyz"], [])
    with pytest.raises(TypeError):
        result.to_bytes(1)


def test_to_bytes_given_another_object_raises_and_forgets_nothing():
    result = serreg.Registry().serialize(VALUE)
    frame = result.to_bytes()

    class Lookalike:  # one slot of the same name as a result's, at another offset
        __slots__ = ("padding", "_class_hash")

    for other in (object(), Lookalike()):
        # compiled, a method of the class refuses other objects (TypeError); the Python method finds no slot
        with pytest.raises(TypeError if COMPILED else AttributeError):
            SerializationResult.to_bytes(other)
        with pytest.raises(AttributeError):
            python_to_bytes(other)
        assert result.to_bytes() == frame


def test_results_are_freed_copied_and_pickled_as_before():
    import copy
    import gc
    import weakref

    class Probe:
        pass

    probe = Probe()
    alive = weakref.ref(probe)
    result = serreg.serialize(VALUE)
    result.out_of_band_buffers.extend([result, probe])  # a cycle through the result: the GC frees it
    del result, probe
    gc.collect()
    assert alive() is None
    result = serreg.serialize(VALUE)
    for twin in (pickle.loads(pickle.dumps(result)), copy.copy(result), copy.deepcopy(result)):
        assert serreg.deserialize(twin) == VALUE and twin.to_bytes() == result.to_bytes()


def test_values_not_plain_late_in_them_give_the_same_frames_call_after_call():
    registry = serreg.Registry()
    records = [{"id": i, "name": f"user{i}", "tags": ["a", "b"]} for i in range(500)]
    late = records + [{(1, 2), (3, 4)}]  # a set of tuples: its serializer is called, after 500 plain records
    frames = {"late": registry.serialize(late).to_bytes(), "plain": registry.serialize(records).to_bytes()}
    for i in range(100):  # the registry sends some of these calls straight to the full path
        name = "late" if i % 3 else "plain"
        frame = registry.serialize(late if name == "late" else records).to_bytes()
        assert frame == frames[name]
    assert registry.deserialize(frames["late"]) == late and registry.deserialize(frames["plain"]) == records
    registry.register_serializer("test.dict", dict, Tagged())  # taken into account whatever path runs
    for _ in range(3):
        assert registry.deserialize(registry.serialize(late)) == [("tagged", repr(r)) for r in records] + [late[-1]]
        assert registry.deserialize(registry.serialize(records)) == [("tagged", repr(r)) for r in records]


def test_bound_methods_take_every_call_the_python_method_takes():
    registry = serreg.Registry()
    frame = registry.serialize(VALUE).to_bytes()
    assert registry.serialize(obj=VALUE).to_bytes() == frame  # keywords: the Python method
    assert registry.deserialize(data=frame) == VALUE
    assert registry.deserialize(frame, None, trusted=True, limits=registry.limits) == VALUE
    signed = registry.serialize(VALUE, key=KEY)
    assert registry.deserialize(signed.to_bytes(), key=KEY) == VALUE
    with pytest.raises(TypeError, match="positional argument"):
        registry.serialize(*range(9))  # more arguments than the builtin keeps on its stack
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        registry.serialize()
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        registry.deserialize(frame, trust=False)

    class Counting(serreg.Registry):
        calls = 0

        def serialize(self, obj, **options):  # an override that calls the Registry's own
            Counting.calls += 1
            return super().serialize(obj, **options)

    counting = Counting()
    assert counting.serialize(VALUE).to_bytes() == frame and Counting.calls == 1
    assert counting.deserialize(counting.serialize(VALUE, canonical=True)) == VALUE and Counting.calls == 2
