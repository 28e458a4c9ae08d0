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
reader never sees a half-made change. A plug-in whose ``register`` function
fails leaves nothing of itself registered.

Hostile input: ``deserialize`` checks a frame's layout against the registry's
:class:`Limits` before decoding it, counts nested values against
``max_depth``, and in untrusted mode (``trusted=False``) refuses the pickle
fallback and every class ID outside the allow-list before their serializer
runs. With ``key=...`` it checks the frame's HMAC-SHA256 signature first.
"""

from __future__ import annotations

import contextlib
import hmac
import threading
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable, Optional

from msgpack import unpackb

from .class_id import CLASS_ID_HASH_SIZE, class_id_hash
from .codec import MsgpackCodec
from .errors import (
    CrossLanguageError,
    DeserializationError,
    LimitExceededError,
    SerializationError,
    SignatureError,
    SerregError,
    UnknownClassIDError,
)
from .frame import FrameView
from .limits import DECODE_STATE, DEFAULT_LIMITS, DecodeState, Limits
from .paths import locate_identity
from .plugins import PluginLoader
from .result import NO_BUFFERS, OutOfBandBuffers, SerializationResult
from .signing import check_key
from .trust import STANDARD_DATA_CLASS_IDS, allowed_hashes, check_allowable, refusal

# True while a serialize(..., cross_language=True) call is running in this context,
# so serializers that call serreg.serialize for nested values inherit it.
_CROSS_LANGUAGE: ContextVar[bool] = ContextVar("serreg_cross_language", default=False)

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

    def __init__(
        self,
        *,
        standard: bool = True,
        fallback: bool = True,
        plugins: bool = True,
        trusted: bool = True,
        limits: Limits = DEFAULT_LIMITS,
        allowed_class_ids=STANDARD_DATA_CLASS_IDS,
    ) -> None:
        """``trusted``: the default of ``deserialize(..., trusted=)``; False makes every
        call untrusted unless it passes ``trusted=True``. ``limits``: the default
        :class:`Limits` of ``deserialize``. ``allowed_class_ids``: the class IDs
        untrusted mode decodes (the standard ones by default; add with
        :meth:`allow_class_ids`)."""
        if type(trusted) is not bool:
            raise TypeError(f"trusted must be True or False, not {trusted!r}")
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a serreg.Limits, not {limits!r}")
        self.trusted = trusted
        self.limits = limits
        self._allowed_ids = frozenset()
        self._allowed_hashes = frozenset()
        self._lock = threading.RLock()
        self._local = threading.local()
        self._by_id: dict[str, Registration] = {}
        self._by_hash: dict[bytes, Registration] = {}
        self._stacks: dict[type, tuple[Registration, ...]] = {}  # newest last
        self._current: dict[type, Registration] = {}
        self._native_overrides: frozenset = frozenset()
        self._rewritten_types: tuple = BIN_LOOKALIKES
        self._packed_as_is: dict[type, bytes] = {}  # type -> ClassIDHash, see serialize()
        self._unpacked_as_is: dict = {}  # ClassIDHashes of the same serializers -> their value type
        self._standard_natives: dict[type, object] = {}
        self._fallback: Optional[Registration] = None
        self._dataclass: Optional[Registration] = None  # step 3 of the lookup, when switched on
        self._dataclass_registration: Optional[Registration] = None
        self._fallback_callback: Optional[RegisterCallback] = None
        self._plugins = PluginLoader() if plugins else None
        self.codec = MsgpackCodec(self)
        self._canonical = None  # the CanonicalForm, made on first use of canonical=True or digest()
        self.allow_class_ids(*allowed_class_ids)
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
        # New serializers become findable by ID before they are used for a type,
        # and the lookup tables go before the type table, so a frame written
        # with a newly published serializer can always be read back.
        current = {cls: stack[-1] for cls, stack in stacks.items()}
        native_overrides = frozenset(
            t for t in NATIVE_TYPES
            if t in current and self._standard_natives and current[t].serializer is not self._standard_natives.get(t)
        )
        self._by_id = by_id
        self._by_hash = by_hash
        self._stacks = stacks
        self._current = current
        self._native_overrides = native_overrides
        self._rewritten_types = BIN_LOOKALIKES + tuple(native_overrides)
        self._packed_as_is = {
            cls: registration.class_hash for cls, registration in current.items()
            if getattr(registration.serializer, "packs_value_as_is", False)
            and getattr(registration.serializer, "codec", None) is self.codec
        }
        self._unpacked_as_is = {  # ClassIDHash -> the one type its in-band may decode to
            class_hash: registration.serializer.expected_type for class_hash, registration in by_hash.items()
            if getattr(registration.serializer, "packs_value_as_is", False)
            and getattr(registration.serializer, "codec", None) is self.codec
        }

    @contextlib.contextmanager
    def _all_or_nothing(self):
        """Registrations made inside stay only if the block completes; otherwise all are undone."""
        with self._lock:
            saved = (self._by_id, self._by_hash, self._stacks, self._fallback, self._fallback_callback)
            try:
                yield
            except BaseException:
                changed = set(self._stacks) | set(saved[2])
                self._fallback, self._fallback_callback = saved[3], saved[4]
                self._publish(saved[0], saved[1], saved[2])
                for cls in changed:
                    self._notify(cls)
                raise

    # ----------------------------------------------------------------- untrusted mode

    def allow_class_ids(self, *class_ids: str) -> None:
        """Let untrusted deserialize calls decode these class IDs.

        Allow a class ID only if its serializer is safe on hostile bytes: it
        builds plain data, checks every length and count it reads, and never
        unpickles or imports. The pickle fallback and ``serreg.dataclass``
        cannot be allowed (ValueError).
        """
        fallback_id = self._fallback.class_id if self._fallback is not None else "serreg.pickle5"
        for class_id in class_ids:
            if not isinstance(class_id, str) or not class_id:
                raise TypeError(f"class_id must be a non-empty str, not {class_id!r}")
            check_allowable(class_id, fallback_id)
        with self._lock:
            self._allowed_ids = self._allowed_ids | frozenset(class_ids)
            self._allowed_hashes = allowed_hashes(self._allowed_ids)

    @property
    def allowed_class_ids(self) -> frozenset:
        """The class IDs untrusted mode decodes."""
        return self._allowed_ids

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
            if class_id in self._allowed_ids:
                raise SerregError(
                    f"fallback class ID {class_id!r} is on the allow-list for untrusted data; "
                    "a fallback must never be decoded from untrusted bytes"
                )
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
        if registration is None and self._plugins is not None:
            # Looked up again even if this call loaded nothing: another thread may just have.
            self._plugins.load_all(self)
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

    def serialize(
        self, obj, *, cross_language: bool = False, canonical: bool = False, key: Optional[bytes] = None
    ) -> SerializationResult:
        """Serialize ``obj``; the result's in-band starts with its ClassIDHash.

        In one process nothing is copied into out-of-band buffers: they are
        memoryviews of ``obj``'s own memory. With ``cross_language=True`` a value
        that would need the Python-only fallback raises CrossLanguageError.

        With ``canonical=True`` equal values give identical frames whatever
        their history (docs/FORMAT.md, section 9); a value without a canonical
        form (one that would need the fallback) raises CanonicalFormError.

        With ``key`` (at least 16 bytes shared with the reader) the result is
        signed: its frame ends with an HMAC-SHA256 of everything before it
        (docs/FORMAT.md, section 4.2). On failure nothing is returned and
        nothing registered is changed.
        """
        if key is not None:
            key = check_key(key)
        if canonical:
            result = self.canonical_form().serialize(obj)
            result._key = key
            return result
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
                    result = SerializationResult._with_class_hash(class_hash, in_band, oob)
                    if key is not None:
                        result._key = key
                    return result
        token = _CROSS_LANGUAGE.set(True) if cross_language and not _CROSS_LANGUAGE.get() else None
        try:
            registration, result = self._serialize_nested(obj)
        except SerializationError as error:
            _attach_path(error, obj)
            raise
        finally:
            if token is not None:
                _CROSS_LANGUAGE.reset(token)
        signed = SerializationResult._with_class_hash(
            registration.class_hash, result.in_band_buffer, result.out_of_band_buffers
        )
        signed._key = key
        return signed

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

    def deserialize(
        self,
        data,
        oob_iterator=None,
        *,
        trusted: Optional[bool] = None,
        key: Optional[bytes] = None,
        limits: Optional[Limits] = None,
    ):
        """Turn a SerializationResult, a contiguous frame, or (inside a serializer)
        a nested in-band section plus the shared ``oob_iterator`` back into a value.

        From a frame in writable memory (bytearray, writable mmap) arrays come
        back as writable views of the frame; from read-only memory (bytes), as
        read-only views.

        Whatever the bytes, the result is a value or a DeserializationError.
        ``trusted=False`` (default: the registry's ``trusted``) refuses the
        pickle fallback and class IDs outside the allow-list before anything
        is unpickled (UntrustedClassIDError). ``key`` requires a frame signed
        with that key and checks it before decoding anything (SignatureError);
        for a SerializationResult, one signed with that key. ``limits``
        (default: the registry's) bounds size, buffers and depth
        (LimitExceededError). A serializer that decodes nested values by
        calling deserialize again inherits the rules of the outer call.
        """
        if (
            type(data) is SerializationResult and trusted is None and key is None and limits is None
            and self.trusted and not data.out_of_band_buffers and data._class_hash in self._unpacked_as_is
            and DECODE_STATE.get() is None
        ):
            # An in-process dict, list, str ... of the standard serializers: straight to the
            # codec. Nested values still get the checks (_decode sets up the call state);
            # any error is reported by the full path below, which decodes the same bytes.
            try:
                value = unpackb(data._in_band, ext_hook=self.codec.ext_hook_without_buffers, strict_map_key=False)
            except Exception:
                pass
            else:
                if type(value) is self._unpacked_as_is[data._class_hash]:
                    return value
        if trusted is not None and type(trusted) is not bool:
            raise TypeError(f"trusted must be True, False or None (the registry's setting), not {trusted!r}")
        outer = DECODE_STATE.get()
        if outer is None or outer.registry is not self or (trusted is False and outer.allowed is None):
            # A new call (or a nested one on another registry, or one that narrows trust).
            if trusted is None:
                trusted = self.trusted if outer is None else outer.allowed is None
            elif outer is not None and outer.allowed is not None:
                trusted = False  # a nested call never widens the outer call's trust
            state = DecodeState(self, None if trusted else self._allowed_hashes,
                                (self.limits if limits is None else limits).max_depth)
            if outer is not None:
                state.depth = outer.depth
            token = DECODE_STATE.set(state)
        else:
            token = None
        try:
            if isinstance(data, SerializationResult):
                if key is not None:
                    _check_result_key(data, check_key(key))
                buffers = data.out_of_band_buffers
                oob = OutOfBandBuffers(buffers) if buffers else NO_BUFFERS
                if data._class_hash is not None:
                    value = self._deserialize_parts(data._class_hash, data._in_band, oob)
                else:
                    value = self._deserialize_section(memoryview(data.in_band_buffer or b""), oob, 0)
                if buffers:
                    _check_all_used(oob, "serialization result")
                return value
            if oob_iterator is not None and key is None:
                return self._deserialize_section(memoryview(data), oob_iterator)
            frame = FrameView(data, self.limits if limits is None else limits, None if key is None else check_key(key))
            buffers = frame.buffers
            oob = OutOfBandBuffers(buffers) if buffers else NO_BUFFERS
            value = self._deserialize_section(frame.in_band, oob, frame.in_band_offset)
            if buffers:
                _check_all_used(oob, "frame")
            return value
        finally:
            if token is not None:
                DECODE_STATE.reset(token)

    def _registration_by_hash(self, class_hash: bytes, offset) -> Registration:
        registration = self._by_hash.get(class_hash)
        if registration is None and self._plugins is not None:
            # Looked up again even if this call loaded nothing: another thread may just have.
            self._plugins.load_all(self)
            registration = self._by_hash.get(class_hash)
        if registration is None:
            raise _located(UnknownClassIDError(
                f"no serializer is registered for ClassIDHash {class_hash.hex()}; register the class ID the "
                "writer used (or install the plug-in that provides it)",
                offset=offset,
            ))
        return registration

    def _deserialize_parts(self, class_hash: bytes, in_band, oob):
        """An in-process result: its hash and in-band were never joined."""
        if in_band is None:
            in_band = b""
        if class_hash not in self._unpacked_as_is:
            in_band = memoryview(in_band)  # what serializers are promised; the codec takes any buffer
        return self._decode(class_hash, in_band, oob, None)

    def _deserialize_section(self, section: memoryview, oob, offset: Optional[int] = None):
        if section.nbytes < CLASS_ID_HASH_SIZE:
            raise DeserializationError(
                f"in-band section of {section.nbytes} bytes is too short to hold a ClassIDHash", offset=offset
            )
        return self._decode(bytes(section[:CLASS_ID_HASH_SIZE]), section[CLASS_ID_HASH_SIZE:], oob, offset)

    def _decode(self, class_hash: bytes, in_band: memoryview, oob, offset):
        """Decode one value: trust and depth checks, then its serializer (every nested value comes here)."""
        state = DECODE_STATE.get()
        registration = self._by_hash.get(class_hash)
        if state is None:
            # Outside a deserialize call (a serializer called directly, or the fast path of an
            # in-process result): this nested value starts one with the registry's own rules.
            state = DecodeState(self, None if self.trusted else self._allowed_hashes, self.limits.max_depth)
            state.depth = 1  # the value that holds this one
            token = DECODE_STATE.set(state)
            try:
                return self._decode(class_hash, in_band, oob, offset)
            finally:
                DECODE_STATE.reset(token)
        if state.allowed is not None and class_hash not in state.allowed:
            raise _located(self._refusal(class_hash, offset))
        depth = state.depth + 1
        if depth > state.max_depth:
            raise _located(LimitExceededError(
                f"values are nested more than max_depth={state.max_depth} deep; raise it with "
                "serreg.Limits(max_depth=...) if such values are expected",
                offset=offset,
            ))
        if registration is None:
            registration = self._registration_by_hash(class_hash, offset)
        state.depth = depth
        try:
            return self._run_deserializer(registration, in_band, oob, offset)
        except DeserializationError as error:
            if error._located:
                error.nesting.insert(0, registration.class_id)
            else:
                error._located = True
                if error.class_id is None:
                    error.class_id = registration.class_id
                if error.offset is None:
                    error.offset = offset
            raise
        finally:
            state.depth = depth - 1

    def _refusal(self, class_hash: bytes, offset) -> DeserializationError:
        registration = self._by_hash.get(class_hash)
        class_id = registration.class_id if registration is not None else None
        return refusal(class_hash, class_id, registration is not None and registration is self._fallback, offset)

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
            raise DeserializationError(
                "nested values are too deep to decode (Python's recursion limit was reached first); "
                "lower serreg.Limits(max_depth=...)",
                class_id=registration.class_id, offset=offset,
            ) from error
        except Exception as error:
            raise DeserializationError(
                f"could not decode the value: {type(error).__name__}: {error}",
                class_id=registration.class_id, offset=offset,
            ) from error


def _located(error: DeserializationError) -> DeserializationError:
    error._located = True
    return error


def _check_result_key(result: SerializationResult, key: bytes) -> None:
    """In one process a result has no bytes to check: it must have been signed with this very key."""
    if result._key is None:
        raise SignatureError(
            "the serialization result is not signed, but a key was given; serialize it with key=... "
            "or deserialize without key="
        )
    if not hmac.compare_digest(result._key, key):
        raise SignatureError("the serialization result was signed with another key")


# The iterator handed to serializers of a result without out-of-band buffers. It is
# never advanced (next() raises StopIteration at once), so one instance serves all.


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
