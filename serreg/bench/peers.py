"""The serializers serreg is measured against, behind one small interface.

Each peer is used the way its documentation recommends for zero-copy work:

- in-process: the peer's own result object with out-of-band buffers kept
  apart (pickle's and pyfory's ``buffer_callback``, serreg's
  SerializationResult), deserialized without joining anything;
- frame: one contiguous byte string and back. serreg writes its frame
  (docs/FORMAT.md, section 4); the pickles and pyfory put their buffers
  in-band, since a single byte string is what they offer for that; msgpack
  has only one form.

A peer that is not installed, or cannot take a payload, says why instead of
being measured.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import pickle
from typing import Optional, Any

import cloudpickle
import msgpack

from .._default import configure_dataclasses, deserialize, serialize
from ..registry import Registry
from .payloads import Record

__all__ = [
    "PEERS", "CloudpicklePeer", "MsgpackPeer", "MsgspecPeer", "Peer", "Pickle5Peer", "PyforyPeer", "RayPeer",
    "SerregDataclassesPeer", "SerregPeer", "SerregStructsPeer", "Unsupported",
]


class Unsupported(Exception):
    """This peer cannot do this operation on this payload; the message says why."""


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


class Peer:
    """One serializer under test.

    ``serialize`` returns the peer's in-process result; ``deserialize`` takes it
    back. ``to_frame`` returns one contiguous bytes-like object; ``from_frame``
    takes it back. ``wire_bytes`` is the size of an in-process result: in-band
    plus out-of-band bytes.
    """

    name = "?"
    how = ""
    distribution = ""

    def __init__(self) -> None:
        self.reason = self._load()

    def _load(self) -> str | None:
        """Import the library; return why it cannot be used, or None."""
        return None

    @property
    def available(self) -> bool:
        return self.reason is None

    @property
    def version(self) -> str:
        return _version(self.distribution) if self.distribution else "?"

    def check(self, value: Any) -> None:
        """Raise Unsupported if this peer cannot take ``value`` at all."""

    def serialize(self, value: Any) -> Any:
        raise NotImplementedError

    def deserialize(self, result: Any) -> Any:
        raise NotImplementedError

    def wire_bytes(self, result: Any) -> int:
        raise NotImplementedError

    def to_frame(self, value: Any) -> Any:
        raise NotImplementedError

    def from_frame(self, frame: Any) -> Any:
        raise NotImplementedError


class SerregPeer(Peer):
    name = "serreg"
    how = "serreg.serialize / serreg.deserialize; frame: SerializationResult.to_bytes()"
    distribution = "serreg"

    def _load(self) -> None:
        self._serialize = serialize
        self._deserialize = deserialize
        return None

    def serialize(self, value: Any) -> Any:
        return self._serialize(value)

    def deserialize(self, result: Any) -> Any:
        return self._deserialize(result)

    def wire_bytes(self, result: Any) -> int:
        return len(result.in_band_buffer) + sum(memoryview(b).nbytes for b in result.out_of_band_buffers)

    def to_frame(self, value: Any) -> Any:
        return self._serialize(value).to_bytes()

    def from_frame(self, frame: Any) -> Any:
        return self._deserialize(frame)


class SerregDataclassesPeer(SerregPeer):
    """serreg with ``serreg.configure_dataclasses`` switched on (opt-in), on its own Registry.

    Measured only on the payloads that hold dataclasses: elsewhere it is serreg.
    """

    name = "serreg+dc"
    how = "serreg with configure_dataclasses() (serreg.dataclass instead of the pickle fallback); own Registry"

    def _load(self) -> None:
        registry = Registry()
        configure_dataclasses(registry)
        self._serialize = registry.serialize
        self._deserialize = registry.deserialize
        return None

    def check(self, value: Any) -> None:
        sample = value[0] if type(value) is list and value else value
        if not dataclasses.is_dataclass(sample):
            raise Unsupported("no dataclass in this payload: the same as serreg")


class SerregStructsPeer(SerregPeer):
    """serreg with the payload's dataclass declared as a struct (``register_struct``), on its own Registry.

    The fair twin of msgspec given the type and pyfory with the class registered. Measured only on
    the payloads that hold dataclasses: elsewhere it is serreg.
    """

    name = "serreg+struct"
    how = "serreg with the payload's dataclass declared by Registry.register_struct (cross-language struct); own Registry"

    def _load(self) -> None:
        self._registry = Registry()
        self._declared: set[type] = set()
        self._serialize = self._registry.serialize
        self._deserialize = self._registry.deserialize
        return None

    def check(self, value: Any) -> None:
        sample = value[0] if type(value) is list and value else value
        cls = type(sample)
        if not dataclasses.is_dataclass(sample):
            raise Unsupported("no dataclass in this payload: the same as serreg")
        if cls not in self._declared:
            self._registry.register_struct(cls, f"bench.{cls.__qualname__}")
            self._declared.add(cls)


class Pickle5Peer(Peer):
    name = "pickle5"
    how = "pickle.dumps(protocol=5, buffer_callback) / pickle.loads(buffers=); frame: pickle.dumps(protocol=5)"
    distribution = ""

    @property
    def version(self) -> str:
        return f"protocol {pickle.HIGHEST_PROTOCOL} (stdlib)"

    def serialize(self, value: Any) -> Any:
        buffers: list[pickle.PickleBuffer] = []
        return pickle.dumps(value, protocol=5, buffer_callback=buffers.append), buffers

    def deserialize(self, result: Any) -> Any:
        data, buffers = result
        return pickle.loads(data, buffers=buffers)

    def wire_bytes(self, result: Any) -> int:
        data, buffers = result
        return len(data) + sum(int(b.raw().nbytes) for b in buffers)

    def to_frame(self, value: Any) -> Any:
        return pickle.dumps(value, protocol=5)

    def from_frame(self, frame: Any) -> Any:
        return pickle.loads(frame)


class CloudpicklePeer(Pickle5Peer):
    name = "cloudpickle"
    how = "cloudpickle.dumps(protocol=5, buffer_callback) / pickle.loads(buffers=); frame: cloudpickle.dumps(protocol=5)"
    distribution = "cloudpickle"

    @property
    def version(self) -> str:
        return _version(self.distribution)

    def _load(self) -> None:
        self._dumps = cloudpickle.dumps  # a dependency of serreg: always installed
        return None

    def serialize(self, value: Any) -> tuple[Any, ...]:
        buffers: list[pickle.PickleBuffer] = []
        return self._dumps(value, protocol=5, buffer_callback=buffers.append), buffers

    def to_frame(self, value: Any) -> Any:
        return self._dumps(value, protocol=5)


class MsgpackPeer(Peer):
    name = "msgpack"
    how = "msgpack.packb / msgpack.unpackb (no out-of-band buffers: in-process and frame are the same bytes)"
    distribution = "msgpack"

    def _load(self) -> None:
        self._packb = msgpack.packb  # a dependency of serreg: always installed
        self._unpackb = msgpack.unpackb
        return None

    def check(self, value: Any) -> None:
        try:
            self._packb(value)
        except TypeError as error:
            raise Unsupported(f"msgpack has no encoding for it ({error})") from None

    def serialize(self, value: Any) -> Any:
        return self._packb(value)

    def deserialize(self, result: Any) -> Any:
        return self._unpackb(result)

    def wire_bytes(self, result: Any) -> int:
        return len(result)

    to_frame = serialize

    def from_frame(self, frame: Any) -> Any:
        return self._unpackb(frame)


class MsgspecPeer(Peer):
    name = "msgspec"
    how = ("msgspec.msgpack.Encoder / Decoder, given the payload's type where it is a dataclass or a list of "
           "one dataclass (msgspec decodes typed data only when told the type); no out-of-band buffers")
    distribution = "msgspec"

    def _load(self) -> Optional[str]:
        try:
            import msgspec
        except ImportError as error:
            return f"msgspec is not installed ({error}); pip install 'serreg[bench]'"
        self._msgspec = msgspec
        self._encode = msgspec.msgpack.Encoder().encode
        self._decode = msgspec.msgpack.Decoder().decode
        return None

    def check(self, value: Any) -> None:
        sample = value[0] if type(value) is list and value else value
        if dataclasses.is_dataclass(sample) and (sample is value or all(type(v) is type(sample) for v in value)):
            cls = type(sample)
            self._decode = self._msgspec.msgpack.Decoder(cls if sample is value else list[cls]).decode  # type: ignore[valid-type]  # a class known at run time
            # msgspec caches what it learnt on the class; the decoder keeps its own copy. Left there,
            # the cache would travel with a class that cloudpickle writes by value, and it cannot be pickled.
            if "__msgspec_cache__" in vars(cls):
                delattr(cls, "__msgspec_cache__")
        else:
            self._decode = self._msgspec.msgpack.Decoder().decode
        try:
            self._encode(value)
        except (TypeError, self._msgspec.EncodeError) as error:
            raise Unsupported(f"msgspec has no encoding for it ({error})") from None

    def serialize(self, value: Any) -> Any:
        return self._encode(value)

    def deserialize(self, result: Any) -> Any:
        return self._decode(result)

    def wire_bytes(self, result: Any) -> int:
        return len(result)

    def to_frame(self, value: Any) -> Any:
        return self._encode(value)

    def from_frame(self, frame: Any) -> Any:
        return self._decode(frame)


class PyforyPeer(Peer):
    name = "pyfory"
    how = ("Fory(xlang=False, ref=False, strict=False) with Record registered; serialize(buffer_callback) "
           "keeping each BufferObject.getbuffer() out-of-band / deserialize(buffers=); frame: serialize() in-band")
    distribution = "pyfory"

    def _load(self) -> str | None:
        try:
            import pyfory
        except ImportError as error:
            return f"pyfory is not installed ({error}); pip install 'serreg[bench]'"
        # strict=False: pyfory refuses an Arrow table in strict mode (registering
        # pa.Table makes it a struct), so unregistered types must be allowed.
        self._fory = pyfory.Fory(xlang=False, ref=False, strict=False)
        self._fory.register(Record)
        return None

    def serialize(self, value: Any) -> tuple[Any, ...]:
        buffers: list[pickle.PickleBuffer] = []

        def keep_out_of_band(buffer_object: Any) -> bool:
            buffers.append(buffer_object.getbuffer())
            return False  # False: out-of-band

        return self._fory.serialize(value, buffer_callback=keep_out_of_band), buffers

    def deserialize(self, result: Any) -> Any:
        data, buffers = result
        return self._fory.deserialize(data, buffers=buffers)

    def wire_bytes(self, result: Any) -> int:
        data, buffers = result
        return len(data) + sum(memoryview(b).nbytes for b in buffers)

    def to_frame(self, value: Any) -> Any:
        return self._fory.serialize(value)

    def from_frame(self, frame: Any) -> Any:
        return self._fory.deserialize(frame)


class RayPeer(Peer):
    name = "ray"
    how = ("ray._private.serialization.SerializationContext.serialize (no ray.init); frame: "
           "SerializedObject.to_bytes(); deserialization needs a ray._raylet.Buffer, which only a running "
           "Ray worker's object store creates, so it is not measured")
    distribution = "ray"

    def _load(self) -> str | None:
        try:
            import ray._private.worker as worker
            from ray._private.serialization import SerializationContext
        except ImportError as error:
            return f"ray is not installed ({error}); pip install 'serreg[ray]' to include it"
        self._context = SerializationContext(worker.global_worker)  # type: ignore[no-untyped-call]  # Ray's own code is untyped
        return None

    def serialize(self, value: Any) -> Any:
        return self._context.serialize(value)

    def deserialize(self, result: Any) -> Any:
        raise Unsupported("Ray deserializes only from object-store buffers (needs ray.init and a raylet)")

    def wire_bytes(self, result: Any) -> int:
        return int(result.total_bytes)

    def to_frame(self, value: Any) -> Any:
        serialized = self._context.serialize(value)
        to_bytes = getattr(serialized, "to_bytes", None)
        if to_bytes is None:
            raise Unsupported(f"Ray's {type(serialized).__name__} has no to_bytes() outside the object store")
        return to_bytes()

    def from_frame(self, frame: Any) -> Any:
        raise Unsupported("Ray deserializes only from object-store buffers (needs ray.init and a raylet)")


PEERS = {
    peer.name: peer
    for peer in (SerregPeer, SerregDataclassesPeer, SerregStructsPeer, Pickle5Peer, CloudpicklePeer, MsgpackPeer, MsgspecPeer, PyforyPeer,
                 RayPeer)
}
