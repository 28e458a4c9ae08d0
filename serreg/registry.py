"""The Registry: class IDs <-> serializers, and serialize/deserialize on top of it.

Lookup precedence for a value (written down because users override built-ins):

1. the newest serializer registered for the value's *exact* type (subclasses
   are never served by their base class's serializer: an ``OrderedDict`` is not
   a ``dict`` here, so no type is silently lost);
2. a plug-in from the ``serreg.serializers`` entry-point group serving the
   type's top-level module, loaded on first use, then step 1 again;
3. only after ``serreg.configure_dataclasses(registry)`` and unless
   ``cross_language=True``: for a dataclass instance that pickle would write as
   class reference plus ``__dict__``, the standard ``serreg.dataclass``
   serializer (Python only);
4. the fallback serializer (pickle protocol 5 through cloudpickle), unless
   ``cross_language=True``.

A serializer with an ``accepts(value)`` method that returns False passes that
value on to steps 3 and 4.

Thread safety: lookups read immutable snapshots and take no lock; registration
changes are serialized by a lock and publish new snapshots atomically, so a
reader never sees a half-made change.
"""

from __future__ import annotations

import contextlib
import threading
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable, Optional

from .class_id import CLASS_ID_HASH_SIZE, class_id_hash
from .codec import MsgpackCodec
from .errors import (
    CrossLanguageError,
    DeserializationError,
    SerializationError,
    SerregError,
    UnknownClassIDError,
)
from .frame import FrameView
from .paths import locate_identity
from .plugins import PluginLoader
from .result import OutOfBandBuffers, SerializationResult

# True while a serialize(..., cross_language=True) call is running in this context,
# so serializers that call serreg.serialize for nested values inherit it.
_CROSS_LANGUAGE: ContextVar[bool] = ContextVar("serreg_cross_language", default=False)

# The registry running the current deserialize call, for pickled values that hold
# registered ones (their reducer must find the same registry on the way back).
ACTIVE_REGISTRY: ContextVar[Optional["Registry"]] = ContextVar("serreg_active_registry", default=None)

# Types msgpack packs without asking; overriding one of them needs a tree rewrite.
NATIVE_TYPES = (type(None), bool, int, float, str, bytes, list, dict)
# Types msgpack would pack as bin although they are not bytes: always rewritten.
BIN_LOOKALIKES = (bytearray, memoryview)

RegisterCallback = Callable[[Optional[str], type, object], None]


@dataclass(frozen=True)
class Registration:
    """One class ID bound to a class and a serializer."""

    class_id: str
    cls: type
    serializer: object
    class_hash: bytes
    origin: str
    python_only: bool = False

    @property
    def accepts(self):
        return getattr(self.serializer, "accepts", None)


def _describe(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _check_serializer(serializer) -> None:
    for method in ("serialize", "deserialize"):
        if not callable(getattr(serializer, method, None)):
            raise TypeError(f"a serializer needs a {method}() method; {serializer!r} has none")


class Registry:
    """An isolated set of serializers with the module-level API as methods.

    ``serreg.register_serializer`` and friends act on a default instance;
    create your own Registry when you need a separate set (tests, libraries).
    """

    def __init__(self, *, standard: bool = True, fallback: bool = True, plugins: bool = True) -> None:
        self._lock = threading.RLock()
        self._local = threading.local()
        self._by_id: dict[str, Registration] = {}
        self._by_hash: dict[bytes, Registration] = {}
        self._stacks: dict[type, tuple[Registration, ...]] = {}  # newest last
        self._current: dict[type, Registration] = {}
        self._native_overrides: frozenset = frozenset()
        self._rewritten_types: tuple = BIN_LOOKALIKES
        self._packed_as_is: dict[type, bytes] = {}  # type -> ClassIDHash, see serialize()
        self._unpacked_as_is: frozenset = frozenset()  # ClassIDHashes of the same serializers
        self._standard_natives: dict[type, object] = {}
        self._fallback: Optional[Registration] = None
        self._dataclass: Optional[Registration] = None  # step 3 of the lookup, when switched on
        self._dataclass_registration: Optional[Registration] = None
        self._fallback_callback: Optional[RegisterCallback] = None
        self._plugins = PluginLoader() if plugins else None
        self.codec = MsgpackCodec(self)
        self._canonical = None  # the CanonicalForm, made on first use of canonical=True or digest()
        if standard:
            from . import standard as standard_module

            with self._origin("serreg (standard)"):
                standard_module.install(self)
            self._standard_natives = {t: self._current[t].serializer for t in NATIVE_TYPES if t in self._current}
        if fallback:
            from .fallback import Pickle5Serializer

            pickle5 = Pickle5Serializer()
            pickle5.registry = self
            with self._origin("serreg (fallback)"):
                self.register_fallback_serializer(pickle5, pickle5.on_register)

    # ----------------------------------------------------------------- registration

    @contextlib.contextmanager
    def _origin(self, origin: str):
        previous = getattr(self._local, "origin", None)
        self._local.origin = origin
        try:
            yield
        finally:
            self._local.origin = previous

    def register_serializer(self, class_id: str, cls: type, serializer) -> None:
        """Bind ``class_id`` to ``cls`` and ``serializer``.

        The newest class ID registered for a type is the one used to serialize
        it; frames written under an older ID of that type still deserialize.
        Re-registering an ID for the same class replaces its serializer; an ID
        bound to a different class, or whose ClassIDHash equals another ID's,
        is refused.
        """
        if not isinstance(class_id, str) or not class_id:
            raise TypeError(f"class_id must be a non-empty str, not {class_id!r}")
        if not isinstance(cls, type):
            raise TypeError(f"cls must be a type, not {cls!r}")
        _check_serializer(serializer)
        class_hash = class_id_hash(class_id)
        with self._lock:
            existing = self._by_id.get(class_id)
            if existing is not None and existing.cls is not cls:
                raise SerregError(
                    f"class ID {class_id!r} is already bound to {_describe(existing.cls)}; "
                    f"choose another class ID for {_describe(cls)} or unregister the old one first"
                )
            clash = self._by_hash.get(class_hash)
            if clash is not None and clash.class_id != class_id:
                raise SerregError(
                    f"class ID {class_id!r} has the same ClassIDHash ({class_hash.hex()}) as the registered "
                    f"class ID {clash.class_id!r}; choose another class ID"
                )
            origin = getattr(self._local, "origin", None) or "user"
            registration = Registration(class_id, cls, serializer, class_hash, origin)
            by_id = dict(self._by_id)
            by_hash = dict(self._by_hash)
            by_id[class_id] = registration
            by_hash[class_hash] = registration
            stacks = dict(self._stacks)
            stack = tuple(r for r in stacks.get(cls, ()) if r.class_id != class_id)
            stacks[cls] = stack + (registration,)
            self._publish(by_id, by_hash, stacks)
        self._notify(cls)

    def unregister_serializer(self, class_id: str) -> None:
        """Remove ``class_id``; the previous class ID registered for its type, if any, is used again."""
        with self._lock:
            registration = self._by_id.get(class_id)
            if registration is None or registration is self._fallback:
                raise UnknownClassIDError(f"no serializer is registered under class ID {class_id!r}")
            by_id = dict(self._by_id)
            by_hash = dict(self._by_hash)
            del by_id[class_id]
            del by_hash[registration.class_hash]
            if registration is self._dataclass_registration:
                # Dataclasses go to the fallback again, as pickle writes them.
                self._dataclass = self._dataclass_registration = None
                self._publish(by_id, by_hash, self._stacks)
                return
            stacks = dict(self._stacks)
            stack = tuple(r for r in stacks[registration.cls] if r.class_id != class_id)
            if stack:
                stacks[registration.cls] = stack
            else:
                del stacks[registration.cls]
            self._publish(by_id, by_hash, stacks)
        self._notify(registration.cls)

    def _publish(self, by_id, by_hash, stacks) -> None:
        # Readers take no lock: each dict is replaced whole, never changed in place.
        current = {cls: stack[-1] for cls, stack in stacks.items()}
        self._native_overrides = frozenset(
            t for t in NATIVE_TYPES
            if t in current and self._standard_natives and current[t].serializer is not self._standard_natives.get(t)
        )
        self._rewritten_types = BIN_LOOKALIKES + tuple(self._native_overrides)
        self._packed_as_is = {
            cls: registration.class_hash for cls, registration in current.items()
            if getattr(registration.serializer, "packs_value_as_is", False)
            and getattr(registration.serializer, "codec", None) is self.codec
        }
        self._unpacked_as_is = frozenset(
            class_hash for class_hash, registration in by_hash.items()
            if getattr(registration.serializer, "packs_value_as_is", False)
            and getattr(registration.serializer, "codec", None) is self.codec
        )
        self._by_id = by_id
        self._by_hash = by_hash
        self._stacks = stacks
        self._current = current

    def _notify(self, cls: type) -> None:
        callback = self._fallback_callback
        if callback is None:
            return
        registration = self._current.get(cls)
        if registration is None:
            callback(None, cls, None)
        else:
            callback(registration.class_id, cls, registration.serializer)

    def register_fallback_serializer(self, serializer, register_callback: Optional[RegisterCallback] = None) -> None:
        """Use ``serializer`` for every value no registered serializer takes.

        Its class ID is ``serializer.class_id`` (``serreg.pickle5`` by default).
        ``register_callback(class_id, cls, serializer)`` is then called for every
        registration already made and every later change; after an unregister it
        receives the type's serializer now in use, or ``(None, cls, None)``.
        """
        _check_serializer(serializer)
        class_id = getattr(serializer, "class_id", "serreg.pickle5")
        class_hash = class_id_hash(class_id)
        with self._lock:
            clash = self._by_hash.get(class_hash)
            if clash is not None and clash is not self._fallback:
                raise SerregError(f"fallback class ID {class_id!r} is already used by a registered serializer")
            origin = getattr(self._local, "origin", None) or "user"
            registration = Registration(class_id, object, serializer, class_hash, origin, python_only=True)
            by_id = dict(self._by_id)
            by_hash = dict(self._by_hash)
            if self._fallback is not None:
                by_id.pop(self._fallback.class_id, None)
                by_hash.pop(self._fallback.class_hash, None)
            by_id[class_id] = registration
            by_hash[class_hash] = registration
            self._fallback = registration
            self._fallback_callback = register_callback
            self._publish(by_id, by_hash, self._stacks)
            if register_callback is not None:
                for cls, current in self._current.items():
                    register_callback(current.class_id, cls, current.serializer)

    def _install_dataclass_serializer(self, class_id: str, serializer) -> None:
        """Register the reader of dataclass instances; writing them is switched on by
        ``_use_dataclass_serializer`` (lookup step 3, after plug-ins, before the fallback).

        Python only, like the fallback: ``cross_language=True`` refuses them.
        """
        class_hash = class_id_hash(class_id)
        with self._lock:
            if class_hash in self._by_hash:
                raise SerregError(f"class ID {class_id!r} (or its ClassIDHash) is already registered")
            origin = getattr(self._local, "origin", None) or "user"
            registration = Registration(class_id, object, serializer, class_hash, origin, python_only=True)
            by_id = dict(self._by_id)
            by_hash = dict(self._by_hash)
            by_id[class_id] = registration
            by_hash[class_hash] = registration
            self._dataclass_registration = registration
            self._publish(by_id, by_hash, self._stacks)

    def _use_dataclass_serializer(self, enabled: bool) -> None:
        if enabled and self._dataclass_registration is None:
            raise SerregError("this registry has no serreg.dataclass serializer (it was made with standard=False "
                              "or the serializer was unregistered)")
        self._dataclass = self._dataclass_registration if enabled else None

    def get_serializer(self, class_id_or_type):
        """The serializer for a class ID (any registered one) or a type (the one in use)."""
        if isinstance(class_id_or_type, str):
            return self._registration_by_id(class_id_or_type).serializer
        if isinstance(class_id_or_type, type):
            registration = self._current.get(class_id_or_type) or self._resolve_type(class_id_or_type)
            if registration is None:
                raise UnknownClassIDError(f"no serializer is registered for type {_describe(class_id_or_type)}")
            return registration.serializer
        raise TypeError(f"get_serializer takes a class ID (str) or a type, not {class_id_or_type!r}")

    def registrations(self) -> list[Registration]:
        """Every registration (the fallback included), plug-ins loaded first."""
        if self._plugins is not None:
            self._plugins.load_all(self)
        return sorted(self._by_id.values(), key=lambda r: r.class_id)

    def _registration_by_id(self, class_id: str) -> Registration:
        registration = self._by_id.get(class_id)
        if registration is None and self._plugins is not None and self._plugins.load_all(self):
            registration = self._by_id.get(class_id)
        if registration is None:
            raise UnknownClassIDError(f"no serializer is registered under class ID {class_id!r}")
        return registration

    def _resolve_type(self, cls: type) -> Optional[Registration]:
        if self._plugins is not None and self._plugins.load_for_module(self, cls.__module__):
            return self._current.get(cls)
        return None

    def _registration_for(self, value) -> Registration:
        cls = type(value)
        registration = self._current.get(cls)
        if registration is None:
            registration = self._resolve_type(cls)
        if registration is not None:
            accepts = getattr(registration.serializer, "accepts", None)
            if accepts is None or accepts(value):
                return registration
        if _CROSS_LANGUAGE.get():
            raise CrossLanguageError(
                f"{_describe(cls)} has no cross-language serializer (it would need the Python-only pickle "
                f"fallback); register one in every language with serreg.register_serializer(class_id, "
                f"{cls.__qualname__}, serializer)",
                value=value,
            )
        dataclass = self._dataclass
        if dataclass is not None and hasattr(cls, "__dataclass_fields__") and dataclass.serializer.accepts(value):
            return dataclass
        if self._fallback is None:
            raise SerializationError(f"no serializer is registered for {_describe(cls)} and there is no fallback", value=value)
        return self._fallback

    # ----------------------------------------------------------------- serialize

    def _serialize_nested(self, value):
        """Serialize one value with its serializer; return (registration, raw result)."""
        registration = self._registration_for(value)
        try:
            result = registration.serializer.serialize(value)
        except SerializationError as error:
            # Raised by a serreg.serialize() call made inside this serializer: remember
            # the value whose serializer made it, to complete the path later.
            if getattr(error, "_root", None) is not None and getattr(error, "_via", None) is None:
                error._via = value
            raise
        except SerregError:
            raise
        except RecursionError as error:
            raise SerializationError("value is nested too deeply to serialize", value=value) from error
        except Exception as error:
            if registration is self._fallback:
                message = (
                    f"nothing can serialize a {_describe(type(value))}: no serializer is registered for it and "
                    f"the pickle fallback failed ({type(error).__name__}: {error}); register a serializer with "
                    f"serreg.register_serializer(class_id, {type(value).__qualname__}, serializer)"
                )
            else:
                message = (
                    f"the serializer for class ID {registration.class_id!r} failed on a {_describe(type(value))}: "
                    f"{type(error).__name__}: {error}"
                )
            raise SerializationError(message, value=value) from error
        if not isinstance(result, SerializationResult):
            raise SerializationError(
                f"the serializer for class ID {registration.class_id!r} returned {type(result).__name__}, "
                "not a SerializationResult",
                value=value,
            )
        return registration, result

    def serialize(self, obj, *, cross_language: bool = False, canonical: bool = False) -> SerializationResult:
        """Serialize ``obj``; the result's in-band starts with its ClassIDHash.

        In one process nothing is copied into out-of-band buffers: they are
        memoryviews of ``obj``'s own memory. With ``cross_language=True`` a value
        that would need the Python-only fallback raises CrossLanguageError.

        With ``canonical=True`` equal values give identical frames whatever
        their history (docs/FORMAT.md, section 9); a value without a canonical
        form (one that would need the fallback) raises CanonicalFormError.
        """
        if canonical:
            return self.canonical_form().serialize(obj)
        if not cross_language:
            # A dict, list, str ... whose serializer is the standard one is the codec's
            # output as it is: skip the generic dispatch (same bytes, same errors).
            class_hash = self._packed_as_is.get(type(obj))
            if class_hash is not None:
                oob = []
                try:
                    in_band = self.codec.pack(obj, oob)
                except SerializationError as error:
                    _attach_path(error, obj)
                    raise
                except SerregError:
                    raise
                except Exception:
                    pass  # the generic path below reports it the way it always does
                else:
                    return SerializationResult._with_class_hash(class_hash, in_band, oob)
        token = _CROSS_LANGUAGE.set(True) if cross_language and not _CROSS_LANGUAGE.get() else None
        try:
            registration, result = self._serialize_nested(obj)
        except SerializationError as error:
            _attach_path(error, obj)
            raise
        finally:
            if token is not None:
                _CROSS_LANGUAGE.reset(token)
        return SerializationResult._with_class_hash(
            registration.class_hash, result.in_band_buffer, result.out_of_band_buffers
        )

    def digest(self, obj) -> bytes:
        """The 32-byte SHA-256 content address of ``obj``: the hash of its canonical frame.

        Out-of-band buffers are hashed where they lie, never joined into one copy.
        """
        return self.canonical_form().digest(obj)

    def canonical_form(self):
        """The :class:`serreg.canonical.CanonicalForm` of this registry."""
        form = self._canonical
        if form is None:
            from .canonical import CanonicalForm

            form = self._canonical = CanonicalForm(self)
        return form

    # ----------------------------------------------------------------- deserialize

    def deserialize(self, data, oob_iterator=None):
        """Turn a SerializationResult, a contiguous frame, or (inside a serializer)
        a nested in-band section plus the shared ``oob_iterator`` back into a value.

        From a frame in writable memory (bytearray, writable mmap) arrays come
        back as writable views of the frame; from read-only memory (bytes), as
        read-only views.
        """
        token = ACTIVE_REGISTRY.set(self)
        try:
            if isinstance(data, SerializationResult):
                buffers = data.out_of_band_buffers
                oob = OutOfBandBuffers(buffers) if buffers else _NO_BUFFERS
                if data._class_hash is not None:
                    value = self._deserialize_parts(data._class_hash, data._in_band, oob)
                else:
                    value = self._deserialize_section(memoryview(data.in_band_buffer or b""), oob, 0)
                if buffers:
                    _check_all_used(oob, "serialization result")
                return value
            if oob_iterator is not None:
                return self._deserialize_section(memoryview(data), oob_iterator)
            frame = FrameView(data)
            buffers = frame.buffers
            oob = OutOfBandBuffers(buffers) if buffers else _NO_BUFFERS
            value = self._deserialize_section(frame.in_band, oob, frame.in_band_offset)
            if buffers:
                _check_all_used(oob, "frame")
            return value
        finally:
            ACTIVE_REGISTRY.reset(token)

    def _registration_by_hash(self, class_hash: bytes, offset) -> Registration:
        registration = self._by_hash.get(class_hash)
        if registration is None and self._plugins is not None and self._plugins.load_all(self):
            registration = self._by_hash.get(class_hash)
        if registration is None:
            raise UnknownClassIDError(
                f"no serializer is registered for ClassIDHash {class_hash.hex()}; register the class ID the "
                "writer used (or install the plug-in that provides it)",
                offset=offset,
            )
        return registration

    def _deserialize_parts(self, class_hash: bytes, in_band, oob):
        registration = self._by_hash.get(class_hash) or self._registration_by_hash(class_hash, None)
        if in_band is None:
            in_band = b""
        if class_hash not in self._unpacked_as_is:
            in_band = memoryview(in_band)  # what serializers are promised; the codec takes any buffer
        return self._run_deserializer(registration, in_band, oob, None)

    def _deserialize_section(self, section: memoryview, oob, offset: Optional[int] = None):
        if section.nbytes < CLASS_ID_HASH_SIZE:
            raise DeserializationError(
                f"in-band section of {section.nbytes} bytes is too short to hold a ClassIDHash", offset=offset
            )
        registration = self._registration_by_hash(bytes(section[:CLASS_ID_HASH_SIZE]), offset)
        return self._run_deserializer(registration, section[CLASS_ID_HASH_SIZE:], oob, offset)

    def _run_deserializer(self, registration: Registration, in_band: memoryview, oob, offset):
        try:
            return registration.serializer.deserialize(in_band, oob)
        except SerregError:
            raise
        except StopIteration as error:
            raise DeserializationError(
                "the serializer asked for more out-of-band buffers than the frame holds",
                class_id=registration.class_id, offset=offset,
            ) from error
        except RecursionError as error:
            raise DeserializationError("nested values are too deep to decode", class_id=registration.class_id) from error
        except Exception as error:
            raise DeserializationError(
                f"could not decode the value: {type(error).__name__}: {error}",
                class_id=registration.class_id, offset=offset,
            ) from error


# The iterator handed to serializers of a result without out-of-band buffers. It is
# never advanced (next() raises StopIteration at once), so one instance serves all.
_NO_BUFFERS = OutOfBandBuffers(())


def _check_all_used(oob: OutOfBandBuffers, what: str) -> None:
    if oob.remaining:
        raise DeserializationError(
            f"the {what} holds {oob.remaining} out-of-band buffer(s) that no serializer used"
        )


def _attach_path(error: SerializationError, root) -> None:
    """Give ``error`` the path of its value inside ``root`` (outermost call wins)."""
    inner_root = getattr(error, "_root", None)
    if inner_root is root:
        return
    if error.path is None:
        target = error.value if error.value is not None else root
        found = locate_identity(root, target)
        error.path = found if found is not None else "obj"
    elif inner_root is not None:
        # The error was located inside a value that a serializer serialized with a
        # nested serialize() call; prefix the path of that value, or of the value
        # whose serializer made the call, marked <TypeName>.
        inner = error.path[len("obj"):]
        prefix = locate_identity(root, inner_root)
        via = getattr(error, "_via", None)
        if prefix is None and via is not None:
            via_path = locate_identity(root, via)
            if via_path is not None:
                prefix = f"{via_path}<{type(via).__name__}>"
        if prefix is not None:
            error.path = prefix + inner
        error._via = None
    error._root = root
