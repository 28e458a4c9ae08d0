"""Many threads serializing, deserializing, registering and unregistering at once; failures leave nothing behind."""

import io
import threading
import time
import warnings

import msgpack
import numpy as np
import pytest

import serreg

from samples import all_values

WORKERS = 8
OPERATIONS = 10_000  # per worker thread
CHURNERS = 2


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class PointSerializer(serreg.Serializer):
    def serialize(self, p):
        return serreg.SerializationResult(msgpack.packb([p.x, p.y]))

    def deserialize(self, in_band, oob):
        return Point(*msgpack.unpackb(in_band))


KEY = b"concurrency-test-key-32-bytes..."


def stable_samples(registry):
    """(value, frame, signed frame) for the samples whose decoded value re-serializes to the same frame."""
    samples = []
    for value in all_values() + [[Point(1, 2), (Point(3, 4),)], {"p": Point(5, 6), "a": np.arange(3)}]:
        frame = registry.serialize(value).to_bytes()
        if registry.serialize(registry.deserialize(frame)).to_bytes() == frame:
            samples.append((value, frame, registry.serialize(value, key=KEY).to_bytes()))
    return samples


def test_threads_serialize_and_deserialize_while_others_register_and_unregister():
    reference = serreg.Registry()
    reference.register_serializer("example.Point", Point, PointSerializer())
    samples = stable_samples(reference)
    assert len(samples) > 40

    registry = serreg.Registry()  # fresh: its plug-ins load lazily, under contention
    registry.register_serializer("example.Point", Point, PointSerializer())
    registry.allow_class_ids("example.Point")
    failures = []
    done = threading.Event()
    counts = [0] * WORKERS
    churn_counts = [0] * CHURNERS

    def worker(index):
        try:
            for i in range(OPERATIONS):
                value, frame, signed = samples[(i * 7 + index) % len(samples)]
                kind = i % 5
                if kind == 0:  # serialize: exactly the expected bytes
                    got = registry.serialize(value).to_bytes()
                    if got != frame:
                        failures.append(f"worker {index}: serialize({type(value).__name__}) gave other bytes")
                elif kind == 1:  # deserialize a frame: a value that writes the same frame again
                    back = registry.deserialize(frame)
                    if registry.serialize(back).to_bytes() != frame:
                        failures.append(f"worker {index}: deserialize({type(value).__name__}) gave another value")
                elif kind == 2:  # untrusted deserialize of a signed frame, checked with the key
                    back = registry.deserialize(signed, key=KEY, trusted=False)
                    if registry.serialize(back, key=KEY).to_bytes() != signed:
                        failures.append(f"worker {index}: signed untrusted round trip of {type(value).__name__} differs")
                elif kind == 3:  # untrusted mode must not leak into the trusted calls around it
                    if registry.deserialize(frame, trusted=False) is None and value is not None:
                        failures.append(f"worker {index}: untrusted deserialize gave None")
                else:  # in-process round trip
                    back = registry.deserialize(registry.serialize(value))
                    if type(back) is not type(value):
                        failures.append(f"worker {index}: in-process round trip changed the type")
                counts[index] += 1
        except Exception as error:  # noqa: BLE001 - reported as a test failure below
            failures.append(f"worker {index}: {type(error).__name__}: {error}")

    def churner(index):
        classes = [type(f"Churn{index}_{n}", (), {}) for n in range(20)]
        try:
            n = 0
            while not done.is_set():
                cls = classes[n % len(classes)]
                class_id = f"churn.{index}.{n % len(classes)}"
                registry.register_serializer(class_id, cls, PointSerializer())
                registry.register_serializer(class_id + ".v2", cls, PointSerializer())
                registry.unregister_serializer(class_id + ".v2")
                registry.unregister_serializer(class_id)
                n += 1
                churn_counts[index] += 1
        except Exception as error:  # noqa: BLE001
            failures.append(f"churner {index}: {type(error).__name__}: {error}")

    churners = [threading.Thread(target=churner, args=(i,)) for i in range(CHURNERS)]
    workers = [threading.Thread(target=worker, args=(i,)) for i in range(WORKERS)]
    start = time.monotonic()
    for thread in churners + workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=300)
    done.set()
    for thread in churners:
        thread.join(timeout=30)
    elapsed = time.monotonic() - start
    assert not any(t.is_alive() for t in workers + churners), "threads did not finish"
    assert failures == [], failures[:5]
    assert counts == [OPERATIONS] * WORKERS
    assert all(c > 0 for c in churn_counts), churn_counts
    # Nothing the churners made is left behind, and the fallback forgot their types too.
    assert not [r.class_id for r in registry.registrations() if r.class_id.startswith("churn.")]
    assert not [c for c in registry._table.snapshot.fallback.serializer.dispatch if c.__name__.startswith("Churn")]
    print(f"{WORKERS} x {OPERATIONS} operations with {sum(churn_counts)} churn rounds in {elapsed:.1f} s")


class Exploding:
    pass


class ExplodingSerializer(serreg.Serializer):
    def serialize(self, value):
        raise RuntimeError("boom")

    def deserialize(self, in_band, oob):
        return Exploding()


def snapshot(registry):
    return (
        {r.class_id: (r.cls, r.serializer) for r in registry.registrations()},
        dict(registry._table.snapshot.fallback.serializer.dispatch),
    )


def test_failure_in_the_middle_of_a_container_leaves_nothing_behind():
    registry = serreg.Registry()
    registry.register_serializer("example.Point", Point, PointSerializer())
    registry.register_serializer("example.Exploding", Exploding, ExplodingSerializer())
    good = [1, Point(1, 2), np.arange(5), {"x": (2, 3)}]
    expected = registry.serialize(good).to_bytes()
    before = snapshot(registry)
    for bad in (good[:2] + [Exploding()] + good[2:], {"a": good, "b": [(Exploding(),)]}, [good, [object(), Exploding()]]):
        with pytest.raises(serreg.SerializationError) as caught:
            registry.serialize(bad)
        assert "example.Exploding" in str(caught.value)
        assert snapshot(registry) == before
    assert registry.serialize(good).to_bytes() == expected


def test_write_to_writes_nothing_when_a_buffer_is_unusable():
    strided = memoryview(np.arange(10)[::2])  # not contiguous
    result = serreg.SerializationResult(serreg.serialize(None).in_band_buffer, [strided])
    sink = io.BytesIO()
    with pytest.raises(serreg.SerregError):
        result.write_to(sink)
    assert sink.getvalue() == b""


class HalfPlugin:
    """An entry point whose register function fails after registering one class ID."""

    name = "halfplugin"
    value = "halfplugin:register"

    def load(self):
        def register(registry):
            registry.register_serializer("half.Point", Point, PointSerializer())
            raise RuntimeError("the plug-in's second registration failed")

        return register


def test_a_plugin_that_fails_half_way_is_rolled_back():
    registry = serreg.Registry()
    before = snapshot(registry)  # loads the real plug-ins first
    registry._plugins._pending = {"halfplugin": HalfPlugin()}
    Local = type("Local", (), {"__module__": "halfplugin"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = registry.serialize(Local()).to_bytes()  # loads the plug-in, which fails
    assert any("rolled back" in str(w.message) for w in caught)
    assert snapshot(registry) == before
    assert "halfplugin" in registry._plugins.failed
    assert type(registry.deserialize(frame)) is Local  # went through the fallback instead


class SlowPlugin:
    """An entry point whose register function takes a while, so another thread meets it half-loaded."""

    name = "slowplugin"
    value = "slowplugin:register"

    def __init__(self, started: threading.Event) -> None:
        self.started = started

    def load(self):
        def register(registry):
            self.started.set()
            time.sleep(0.3)
            registry.register_serializer("slow.Local", SlowLocal, PointSerializer())

        return register


class SlowLocal:
    __module__ = "slowplugin"

    def __init__(self, x=1, y=2):
        self.x, self.y = x, y


def test_a_thread_meeting_a_plugin_being_loaded_waits_for_it():
    # Regression: the second thread found the entry point already taken by the first and
    # fell back to pickle (or, reading a frame, raised UnknownClassIDError).
    registry = serreg.Registry()
    snapshot(registry)  # the real plug-ins first
    started = threading.Event()
    registry._plugins._pending = {"slowplugin": SlowPlugin(started)}
    results = {}

    def first():
        results["first"] = registry.serialize(SlowLocal()).to_bytes()

    thread = threading.Thread(target=first)
    thread.start()
    assert started.wait(5)
    results["second"] = registry.serialize(SlowLocal()).to_bytes()  # while the plug-in is loading
    thread.join(5)
    expected = serreg.wire.class_id.class_id_hash("slow.Local")
    assert results["first"][32:40] == expected
    assert results["second"][32:40] == expected
