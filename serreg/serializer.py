"""The Serializer interface: the base class with every hook declared, and its typed Protocol.

A serializer turns objects of one class into a SerializationResult (or plain
in-band bytes, when it has no out-of-band buffers) and back. Extend
:class:`Serializer`: it declares ``serialize`` and ``deserialize``, which every
serializer implements, and each optional hook with its default, so a
serializer overrides only what it needs. Any other object with ``serialize``
and ``deserialize`` methods (:class:`SerializerLike`) is accepted too, and
:class:`FunctionSerializer` makes one of two functions (what
``register_serializer(class_id, cls, serialize=f, deserialize=g)`` and the
``@serreg.register`` decorator build).

The registry reads the optional hooks once, when a serializer is registered
(:func:`hooks_of`), never while values are serialized.
"""

from __future__ import annotations

from dataclasses import dataclass
import inspect
from typing import Any, Callable, Iterator, Optional, Protocol, Union, runtime_checkable

from .result import SerializationResult

__all__ = ["DeserializeFunction", "FunctionSerializer", "SerializeFunction", "Serializer", "SerializerLike"]

# What a serializer's serialize returns: a result, or plain in-band bytes when there are no buffers.
Serialized = Union[SerializationResult, bytes, bytearray, memoryview]
SerializeFunction = Callable[[Any], Serialized]
# deserialize(in_band) or deserialize(in_band, oob_iterator): see FunctionSerializer.
DeserializeFunction = Callable[..., Any]


class Serializer:
    """Turns objects of one class into a SerializationResult and back.

    ``serialize(obj)`` returns in-band bytes plus out-of-band memoryviews as a
    SerializationResult, or just the in-band bytes (bytes, bytearray,
    memoryview) when there are no out-of-band buffers;
    ``deserialize(in_band_buffer, oob_iterator)`` gets back a memoryview of
    exactly those in-band bytes and an iterator over the out-of-band buffers,
    from which it takes, in order, as many buffers as ``serialize`` produced.
    In one process the buffers are the very memoryviews ``serialize`` returned,
    and ``in_band_buffer.obj`` is the object it returned as in-band; from a
    frame they are views into the frame.

    Optional hooks, each declared here with its default:

    - ``accepts(obj) -> bool``: False passes that value on to the dataclass
      serializer or the fallback (for example numpy object arrays). Default:
      every value of the registered type.
    - ``refusal(obj) -> str | None``: for a value ``accepts`` passes on, why
      it has no cross-language form (for example "dtype float128 is a platform
      long double"); ``cross_language=True`` and ``digest`` put it in their
      refusal. Default: None (the refusal names only the type).
    - ``serialize_canonical(obj)``: the canonical form (docs/FORMAT.md,
      section 9), used by ``serialize(..., canonical=True)`` and ``digest``.
      Default: none, and such values raise CanonicalFormError.
    - ``handled_by_pickle``: True when pickle already keeps these values
      exactly, so the pickle fallback does not route them through this
      serializer when it meets them inside a pickled object. Default: False.
    - ``class_id``: the class ID a fallback serializer is registered under
      (``register_fallback_serializer``). Default: None, which means
      ``"serreg.pickle5"``.
    - ``leaf``: True when ``serialize`` never hands a value inside ``obj`` back
      to serreg (no ``serreg.serialize`` call, no struct), so a top-level
      value goes to it without the struct table and whole-value fallback
      bookkeeping around the call (the same bytes, less work). Default: False.
    """

    class_id: Optional[str] = None
    handled_by_pickle: bool = False
    leaf: bool = False

    def serialize(self, obj: Any) -> Serialized:
        raise NotImplementedError(f"{type(self).__name__} must implement serialize(obj)")

    def deserialize(self, in_band_buffer: memoryview, oob_iterator: Iterator[memoryview]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement deserialize(in_band_buffer, oob_iterator)")

    def accepts(self, obj: Any) -> bool:
        """False sends ``obj`` to the dataclass serializer or the fallback instead."""
        return True

    def refusal(self, obj: Any) -> Optional[str]:
        """Why ``obj``, which ``accepts`` passed on, has no cross-language form; None: no reason given."""
        return None

    def serialize_canonical(self, obj: Any) -> Serialized:
        """The canonical form of ``obj``: equal values as identical bytes (docs/FORMAT.md, section 9)."""
        raise NotImplementedError(f"{type(self).__name__} defines no canonical form")


@runtime_checkable
class SerializerLike(Protocol):
    """What the registry needs of a serializer: the two methods of :class:`Serializer`."""

    def serialize(self, obj: Any) -> Serialized: ...

    def deserialize(self, in_band_buffer: memoryview, oob_iterator: Iterator[memoryview]) -> Any: ...


class FunctionSerializer(Serializer):
    """A serializer made of two functions, as Ray and Dask register them.

    ``serialize(obj)`` returns the in-band bytes (bytes, bytearray or
    memoryview), or a SerializationResult when it has out-of-band buffers.
    ``deserialize`` takes either one argument, the in-band bytes as a
    memoryview (then ``serialize`` must return no out-of-band buffers), or two:
    the in-band memoryview and the iterator over the out-of-band buffers, as
    :meth:`Serializer.deserialize`. Which one is read from its signature once,
    here.
    """

    def __init__(self, serialize: SerializeFunction, deserialize: DeserializeFunction) -> None:
        for name, function in (("serialize", serialize), ("deserialize", deserialize)):
            if not callable(function):
                raise TypeError(f"{name} must be a function, not {function!r}")
        _positional_arguments(serialize, "serialize", (1,))  # refused here, not at the first value it meets
        self._serialize = serialize
        self._deserialize = deserialize
        self.takes_buffers = _positional_arguments(deserialize, "deserialize", (1, 2)) == 2

    def serialize(self, obj: Any) -> Serialized:
        returned = self._serialize(obj)
        if not self.takes_buffers:
            buffers = returned.out_of_band_buffers if isinstance(returned, SerializationResult) else ()
            if buffers:
                raise TypeError(
                    f"serialize returned {len(buffers)} out-of-band buffers, but deserialize "
                    "takes only the in-band bytes; give deserialize a second parameter, the iterator over the "
                    "buffers"
                )
        return returned

    def deserialize(self, in_band_buffer: memoryview, oob_iterator: Iterator[memoryview]) -> Any:
        if self.takes_buffers:
            return self._deserialize(in_band_buffer, oob_iterator)
        return self._deserialize(in_band_buffer)

    def __repr__(self) -> str:
        return f"FunctionSerializer({_name(self._serialize)}, {_name(self._deserialize)})"


def serializer_of_class(cls: type) -> FunctionSerializer:
    """The serializer ``@serreg.register(class_id)`` makes of a class that serializes itself:
    ``cls.serialize(self)`` and the classmethod or staticmethod ``cls.deserialize``."""
    serialize = inspect.getattr_static(cls, "serialize", None)
    deserialize = inspect.getattr_static(cls, "deserialize", None)
    if not callable(serialize) or not isinstance(deserialize, (classmethod, staticmethod)):
        raise TypeError(
            f"@register on {cls.__qualname__} needs serialize= and deserialize= functions, or the class must "
            "define a serialize(self) method and a deserialize classmethod or staticmethod"
        )
    return FunctionSerializer(getattr(cls, "serialize"), getattr(cls, "deserialize"))


def _positional_arguments(function: Callable[..., Any], name: str, counts: tuple[int, ...]) -> int:
    """The largest of ``counts`` that ``function`` accepts as positional arguments."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return max(counts)  # a builtin without a signature: assume the full interface
    for count in sorted(counts, reverse=True):
        try:
            signature.bind(*range(count))
        except TypeError:
            continue
        return count
    wanted = " or ".join(map(str, counts))
    raise TypeError(f"{name} must take {wanted} positional argument{'' if wanted == '1' else 's'}; {_name(function)} takes {signature}")


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, "__qualname__", None) or repr(function)


@dataclass(frozen=True)
class Hooks:
    """The optional hooks of one serializer, None where it keeps the default."""

    accepts: Optional[Callable[[Any], bool]]
    refusal: Optional[Callable[[Any], Optional[str]]]
    serialize_canonical: Optional[Callable[[Any], SerializationResult]]
    handled_by_pickle: bool
    class_id: Optional[str]
    leaf: bool


def _overridden(method: Any, default: Any) -> Optional[Callable[..., Any]]:
    return None if getattr(method, "__func__", None) is default else method


def check_serializer(serializer: object) -> None:
    """Raise TypeError unless ``serializer`` has serialize() and deserialize() methods."""
    for method in ("serialize", "deserialize"):
        if not callable(getattr(serializer, method, None)):
            raise TypeError(f"a serializer needs a {method}() method; {serializer!r} has none")


def hooks_of(serializer: object) -> Hooks:
    """The optional hooks ``serializer`` defines (see :class:`Serializer`).

    The one place that looks hooks up: for a Serializer, the declared
    attributes; for any other SerializerLike, those of them it has.
    """
    if isinstance(serializer, Serializer):
        return Hooks(
            accepts=_overridden(serializer.accepts, Serializer.accepts),
            refusal=_overridden(serializer.refusal, Serializer.refusal),
            serialize_canonical=_overridden(serializer.serialize_canonical, Serializer.serialize_canonical),
            handled_by_pickle=bool(serializer.handled_by_pickle),
            class_id=serializer.class_id,
            leaf=serializer.leaf is True,
        )
    return Hooks(
        accepts=getattr(serializer, "accepts", None),
        refusal=getattr(serializer, "refusal", None),
        serialize_canonical=getattr(serializer, "serialize_canonical", None),
        handled_by_pickle=bool(getattr(serializer, "handled_by_pickle", False)),
        class_id=getattr(serializer, "class_id", None),
        leaf=getattr(serializer, "leaf", False) is True,
    )


def takes(serializer: object, value: Any) -> bool:
    """True if ``serializer`` takes ``value`` (its ``accepts`` hook says so, or it has none)."""
    accepts = hooks_of(serializer).accepts
    return accepts is None or bool(accepts(value))
