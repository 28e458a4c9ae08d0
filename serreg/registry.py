"""The Registry: class IDs <-> serializers, and serialize/deserialize on top of it.

This module is the public facade; the work is done by the parts in
``serreg/_registry/``: ``table`` (registrations, published as immutable
snapshots), ``dispatch`` (the lookup precedence, written down there),
``encode`` and ``decode`` (a value's trip through its serializers),
``plugins`` (the ``serreg.serializers`` entry points). A value being
serialized or deserialized never comes back here: the codec and the parts
call each other through the callables they were given. ``serialize`` and
``deserialize`` without options first offer the value to the codec's
top-level entries (``serreg/codec/top.py``), which write or read a plain
value (a dict, list, str ... of msgpack data only) in one call and answer
NotImplemented for anything else; with the compiled codec that call is made
from C (``top_method``: bound to a registry, the two methods are builtin methods
the interpreter calls directly), before any Python frame of this module runs, and a
trusted frame or result of any other value is then read by the codec's
``top_value`` (the twin of ``Decoder._top_value``), also from C.

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

from typing import Union, Iterator, Any, Callable, Iterable, Optional, TypeVar

from ._registry.decode import Decoder, NestedDecoder, Settings
from ._registry.dispatch import Dispatch
from ._registry.encode import Encoder, NestedEncoder
from ._registry.pinpoint import raise_refined, refine_error
from ._registry.plugins import PluginLoader
from ._registry.table import FALLBACK_ORIGIN, STANDARD_ORIGIN, Registration, RegisterCallback, Table
from .canonical.form import CanonicalForm
from .canonical.structs import CanonicalStructs
from .codec import MsgpackCodec, top_method
from .limits import DEFAULT_LIMITS, Limits
from .result import SerializationResult
from .serializer import DeserializeFunction, FunctionSerializer, SerializeFunction, SerializerLike, serializer_of_class
from .standard import DATA_CLASS_IDS, FALLBACK_CLASS_ID, install
from .standard.pickle5 import Pickle5Serializer
from .implicit.install import install_reader, make_writer
from .structs.registrar import StructRegistrar, install_structs

__all__ = ["Registration", "Registry"]

_Class = TypeVar("_Class", bound=type)


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
        allowed_class_ids: Iterable[str] = DATA_CLASS_IDS,
    ) -> None:
        """``trusted``: the default of ``deserialize(..., trusted=)``; False makes every
        call untrusted unless it passes ``trusted=True``. ``limits``: the default
        :class:`Limits` of ``deserialize``. ``allowed_class_ids``: the class IDs
        untrusted mode decodes (the standard ones by default; add with
        :meth:`allow_class_ids`)."""
        _check_trusted(trusted)
        _check_limits(limits)
        self._settings = Settings(trusted, limits)
        self._table = table = Table()
        self._plugins = PluginLoader(self, table) if plugins else None
        self._dispatch = dispatch = Dispatch(table, self._plugins)
        nested_encoder = NestedEncoder(dispatch)
        nested_decoder = NestedDecoder(table, dispatch, self._settings)
        self.codec = codec = MsgpackCodec(nested_encoder.encode, nested_decoder.decode, table)
        self._structs = structs = StructRegistrar(table, codec)
        canonical_structs = CanonicalStructs(structs.struct_id_of, structs.by_class_id, structs.frames.structs_hash)
        self._canonical = CanonicalForm(dispatch.registration_for, lambda: table.snapshot.native_overrides,
                                        dispatch.refusal_for, canonical_structs)
        implicit = make_writer(table, dispatch, codec, structs)
        self._encoder = Encoder(nested_encoder, codec, self._canonical, table, self._structs.frames, implicit)
        self._decoder = Decoder(nested_decoder, table, self._settings)
        self._serialize_top, self._unpack_top = codec.serialize_top, codec.unpack_top
        codec.bind_registry(self, self._settings, self._encoder.serialize, self._decoder.deserialize, refine_error)
        self._decoder.bind_codec(codec)
        self.allow_class_ids(*allowed_class_ids)
        if standard:
            with table.origin(STANDARD_ORIGIN):
                install(table, codec)
                install_structs(self._structs, table, codec, nested_decoder.decode_section)
        if fallback:
            pickle5 = Pickle5Serializer(FALLBACK_CLASS_ID, dispatch.resolve_type, dispatch.serializer_by_id)
            with table.origin(FALLBACK_ORIGIN):
                table.register_fallback(pickle5, pickle5.on_register)
            if standard:
                with table.origin(STANDARD_ORIGIN):
                    install_reader(table, dispatch, implicit, pickle5, codec)

    # ----------------------------------------------------------------- settings

    @property
    def trusted(self) -> bool:
        """The default of ``deserialize(..., trusted=)``."""
        return self._settings.trusted

    @trusted.setter
    def trusted(self, trusted: bool) -> None:
        _check_trusted(trusted)
        self._settings.trusted = trusted

    @property
    def limits(self) -> Limits:
        """The default :class:`Limits` of ``deserialize``."""
        return self._settings.limits

    @limits.setter
    def limits(self, limits: Limits) -> None:
        _check_limits(limits)
        self._settings.limits = limits

    # ----------------------------------------------------------------- registration

    def register_serializer(
        self,
        class_id: str,
        cls: type,
        serializer: Optional[SerializerLike] = None,
        *,
        serialize: Optional[SerializeFunction] = None,
        deserialize: Optional[DeserializeFunction] = None,
    ) -> None:
        """Bind ``class_id`` to ``cls`` and a serializer: an object with ``serialize`` and
        ``deserialize`` methods (a :class:`Serializer`), or the two functions
        ``serialize=`` and ``deserialize=`` (see :class:`serreg.serializer.FunctionSerializer`:
        ``serialize(obj)`` may return plain bytes, ``deserialize`` takes the in-band
        memoryview and, if it has a second parameter, the out-of-band iterator).

        The newest class ID registered for a type is the one used to serialize
        it; frames written under an older ID of that type still deserialize.
        Re-registering an ID for the same class replaces its serializer; an ID
        bound to a different class, or whose ClassIDHash equals another ID's,
        is refused.
        """
        if serializer is None:
            if serialize is None or deserialize is None:
                raise TypeError("register_serializer needs a serializer, or both serialize= and deserialize=")
            serializer = FunctionSerializer(serialize, deserialize)
        elif serialize is not None or deserialize is not None:
            raise TypeError("register_serializer takes a serializer or serialize= and deserialize=, not both")
        self._table.register(class_id, cls, serializer)

    def register(
        self,
        class_id: str,
        cls: Optional[type] = None,
        *,
        serialize: Optional[SerializeFunction] = None,
        deserialize: Optional[DeserializeFunction] = None,
    ) -> Callable[[_Class], _Class]:
        """A class decorator that registers under ``class_id``; it returns the class unchanged.

        On the class of your values: ``@register("myapp.Point", serialize=f, deserialize=g)``,
        or ``@register("myapp.Point")`` when the class defines ``serialize(self)`` and a
        ``deserialize`` classmethod or staticmethod. On a serializer class:
        ``@register("myapp.Point", Point)`` registers an instance of it, made without
        arguments, for ``Point``.
        """

        def decorate(decorated: _Class) -> _Class:
            if cls is not None:
                if serialize is not None or deserialize is not None:
                    raise TypeError("@register takes the served class (on a serializer class) or serialize= and "
                                    "deserialize= (on the class of the values), not both")
                self.register_serializer(class_id, cls, decorated())
            elif serialize is not None or deserialize is not None:
                self.register_serializer(class_id, decorated, serialize=serialize, deserialize=deserialize)
            else:
                self.register_serializer(class_id, decorated, serializer_of_class(decorated))
            return decorated

        return decorate

    def unregister_serializer(self, class_id: str) -> None:
        """Remove ``class_id``; the previous class ID registered for its type, if any, is used again."""
        self._table.unregister(class_id)

    def register_fallback_serializer(
        self, serializer: SerializerLike, register_callback: Optional[RegisterCallback] = None
    ) -> None:
        """Use ``serializer`` for every value no registered serializer takes.

        Its class ID is ``serializer.class_id`` (``serreg.pickle5`` by default).
        ``register_callback(class_id, cls, serializer)`` is then called for every
        registration already made and every later change; after an unregister it
        receives the type's serializer now in use, or ``(None, cls, None)``.
        """
        self._table.register_fallback(serializer, register_callback)

    def register_struct(self, cls: type, class_id: str) -> None:
        """Declare ``cls`` (a dataclass, NamedTuple, attrs class or msgspec Struct) the cross-language struct
        ``class_id``: its annotated fields are its serializer (docs/FORMAT.md, section 10).

        Field types come from the annotations (``Annotated[int, serreg.int32]`` for
        exact widths); its instances are written as field-ordered arrays whose
        definition travels once per frame, read back by field name (missing fields
        take their defaults, unknown ones are skipped). The class ID is allowed in
        untrusted mode: a reader builds only this class, without calling its code
        (a msgspec Struct, which only its constructor can make, is called with
        keyword arguments: its ``__post_init__`` runs, as when msgspec decodes).
        """
        self._structs.register(cls, class_id)

    def configure_dataclasses(self, enabled: bool = True) -> None:
        """Write dataclass instances with ``serreg.dataclass`` instead of the pickle fallback
        (see :func:`serreg.configure_dataclasses`)."""
        self._table.use_dataclass(enabled)

    def configure_fallback(self, *, whole_values: bool = True, implicit_structs: bool = True) -> None:
        """How the pickle fallback writes a value that holds values only it takes.

        ``whole_values=True`` (the default): the whole value is one pickle, so
        pickle's memo and a class written by value (``__main__``) serve every
        nested value at once; registered values inside it still go through
        their serializers, their buffers out-of-band. ``False``: each such
        value is pickled on its own, and the rest of the value stays readable
        by other languages (they keep each pickle opaque).

        ``implicit_structs=True`` (the default): before pickling a whole value,
        write its plain objects (dataclasses, ordinary instances) as implicit
        structs when that keeps what pickle keeps (no object shared, nothing
        pickle-specific; docs/FORMAT.md 10.9); ``False``: always pickle.
        """
        if type(whole_values) is not bool:
            raise TypeError(f"whole_values must be True or False, not {whole_values!r}")
        if type(implicit_structs) is not bool:
            raise TypeError(f"implicit_structs must be True or False, not {implicit_structs!r}")
        self._encoder.whole_values = whole_values
        self._encoder.implicit_structs = implicit_structs

    def allow_class_ids(self, *class_ids: str) -> None:
        """Let untrusted deserialize calls decode these class IDs.

        Allow a class ID only if its serializer is safe on hostile bytes: it
        builds plain data, checks every length and count it reads, and never
        unpickles or imports. The pickle fallback and ``serreg.dataclass``
        cannot be allowed (ValueError).
        """
        self._table.allow(class_ids)

    @property
    def allowed_class_ids(self) -> frozenset[str]:
        """The class IDs untrusted mode decodes."""
        return self._table.snapshot.allowed_ids

    def get_serializer(self, class_id_or_type: Union[str, type]) -> Any:
        """The serializer for a class ID (any registered one) or a type (the one in use)."""
        if isinstance(class_id_or_type, str):
            return self._dispatch.by_id(class_id_or_type).serializer
        if isinstance(class_id_or_type, type):
            return self._dispatch.by_type(class_id_or_type).serializer
        raise TypeError(f"get_serializer takes a class ID (str) or a type, not {class_id_or_type!r}")

    def registrations(self) -> list[Registration]:
        """Every registration (the fallback included), plug-ins loaded first."""
        return self._dispatch.registrations()

    # ----------------------------------------------------------------- serialize and deserialize

    @top_method("serialize")
    def serialize(
        self, obj: Any, *, cross_language: bool = False, canonical: bool = False, key: Optional[bytes] = None
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
        if key is None and not canonical and not cross_language:
            result = self._serialize_top(obj)  # a plain value: written in one call of the codec
            if type(result) is SerializationResult:
                return result
        return self._encoder.serialize(obj, cross_language, canonical, key)

    @top_method("deserialize")
    def deserialize(
        self,
        data: Any,
        oob_iterator: Optional[Iterator[memoryview]] = None,
        *,
        trusted: Optional[bool] = None,
        key: Optional[bytes] = None,
        limits: Optional[Limits] = None,
    ) -> Any:
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
        try:
            if oob_iterator is None and trusted is None and key is None and limits is None:
                value = self._unpack_top(data, self._settings.plain)  # a plain frame or result: one call
                if value is not NotImplemented:
                    return value
            return self._decoder.deserialize(data, oob_iterator, trusted, key, limits)
        except Exception as error:
            if oob_iterator is None:
                raise_refined(data, error)
            raise

    def digest(self, obj: Any) -> bytes:
        """The 32-byte SHA-256 content address of ``obj``: the hash of its canonical frame.

        Out-of-band buffers are hashed where they lie, never joined into one copy.
        """
        return self._canonical.digest(obj)

    def canonical_form(self) -> CanonicalForm:
        """The :class:`serreg.canonical.CanonicalForm` of this registry."""
        return self._canonical


def _check_trusted(trusted: object) -> None:
    if type(trusted) is not bool:
        raise TypeError(f"trusted must be True or False, not {trusted!r}")


def _check_limits(limits: object) -> None:
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a serreg.Limits, not {limits!r}")
