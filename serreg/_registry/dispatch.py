"""Lookup precedence: which registration serves a value, a ClassIDHash or a class ID.

For a value (written down because users override built-ins):

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

A serializer whose ``accepts(value)`` hook returns False passes that value on
to steps 3 and 4. A ClassIDHash or class ID no loaded serializer knows loads
every plug-in not loaded yet, then is looked up again.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Optional

from ..errors import CrossLanguageError, SerializationError, UnknownClassIDError
from ..standard import EXTRA_OF_CLASS_ID, STANDARD_CLASS_IDS
from ..wire.class_id import class_id_hash
from ..wire.frame import MAGIC
from .plugins import PluginLoader
from .table import Registration, Table

# True while a serialize(..., cross_language=True) call is running in this context,
# so serializers that call serreg.serialize for nested values inherit it.
CROSS_LANGUAGE: ContextVar[bool] = ContextVar("serreg_cross_language", default=False)

# ClassIDHash -> class ID of every standard class ID, to name what a missing plug-in would have read.
_STANDARD_NAMES = {class_id_hash(class_id): class_id for class_id in STANDARD_CLASS_IDS}


def refusal_of(registration: Optional[Registration], value: Any) -> Optional[str]:
    """The ``refusal`` hook's reason for ``value``, or None (no registration, no hook, no reason)."""
    if registration is None or registration.refusal is None:
        return None
    return registration.refusal(value)


def describe(cls: type) -> str:
    """``module.QualifiedName`` of a type, for messages."""
    return f"{cls.__module__}.{cls.__qualname__}"


class Dispatch:
    """Finds registrations in one table, loading plug-ins (when there is a loader) on a miss."""

    def __init__(self, table: Table, plugins: Optional[PluginLoader]) -> None:
        self._table = table
        self._plugins = plugins

    def registration_for(self, value: Any) -> Registration:
        """The registration that serializes ``value`` (steps 1 to 4 above)."""
        cls = type(value)
        snapshot = self._table.snapshot
        registration = snapshot.current.get(cls)
        if registration is None:
            registration = self.resolve_type(cls)
            snapshot = self._table.snapshot
        if registration is not None:
            accepts = registration.accepts
            if accepts is None or accepts(value):
                return registration
        if CROSS_LANGUAGE.get():
            reason = refusal_of(registration, value)
            if reason is not None:
                raise CrossLanguageError(f"{describe(cls)}: {reason} (it would need the Python-only pickle fallback)",
                                         value=value)
            raise CrossLanguageError(
                f"{describe(cls)} has no cross-language serializer (it would need the Python-only pickle "
                f"fallback); register one in every language with serreg.register_serializer(class_id, "
                f"{cls.__qualname__}, serializer)",
                value=value,
            )
        dataclass = snapshot.dataclass_writer
        if dataclass is not None and hasattr(cls, "__dataclass_fields__") and (dataclass.accepts is None or dataclass.accepts(value)):
            return dataclass
        if snapshot.fallback is None:
            raise SerializationError(f"no serializer is registered for {describe(cls)} and there is no fallback", value=value)
        return snapshot.fallback

    def refusal_for(self, value: Any) -> Optional[str]:
        """Why the serializer registered for ``value``'s type passed it on, if it says."""
        return refusal_of(self._table.snapshot.current.get(type(value)), value)

    def resolve_type(self, cls: type) -> Optional[Registration]:
        """Load the plug-in serving ``cls``'s top-level module, if any; the registration for ``cls`` after."""
        if self._plugins is not None and self._plugins.load_for_module(cls.__module__):
            return self._table.snapshot.current.get(cls)
        return None

    def by_hash(self, class_hash: bytes, offset: Optional[int]) -> Registration:
        """The registration of a ClassIDHash read from a frame; UnknownClassIDError if none."""
        registration = self._table.snapshot.by_hash.get(class_hash)
        if registration is None and self._plugins is not None:
            # Looked up again even if this call loaded nothing: another thread may just have.
            self._plugins.load_all()
            registration = self._table.snapshot.by_hash.get(class_hash)
        if registration is None:
            error = UnknownClassIDError(_unknown_hash_message(class_hash, self._plugins is not None), offset=offset)
            error.located = True
            raise error
        return registration

    def by_id(self, class_id: str) -> Registration:
        """The registration of a class ID (any registered one); UnknownClassIDError if none."""
        registration = self._table.snapshot.by_id.get(class_id)
        if registration is None and self._plugins is not None:
            # Looked up again even if this call loaded nothing: another thread may just have.
            self._plugins.load_all()
            registration = self._table.snapshot.by_id.get(class_id)
        if registration is None:
            raise UnknownClassIDError(f"no serializer is registered under class ID {class_id!r}")
        return registration

    def serializer_by_id(self, class_id: str) -> Any:
        """The serializer of a class ID (what the pickle fallback needs to restore a registered value)."""
        return self.by_id(class_id).serializer

    def by_type(self, cls: type) -> Registration:
        """The registration in use for a type (its plug-in loaded first); UnknownClassIDError if none."""
        registration = self._table.snapshot.current.get(cls) or self.resolve_type(cls)
        if registration is None:
            raise UnknownClassIDError(f"no serializer is registered for type {describe(cls)}")
        return registration

    def registrations(self) -> list[Any]:
        """Every registration (the fallback included), plug-ins loaded first, sorted by class ID."""
        if self._plugins is not None:
            self._plugins.load_all()
        return sorted(self._table.snapshot.by_id.values(), key=lambda r: r.class_id)


def _unknown_hash_message(class_hash: bytes, plugins: bool) -> str:
    class_id = _STANDARD_NAMES.get(class_hash)
    extra = EXTRA_OF_CLASS_ID.get(class_id) if class_id is not None else None
    if extra is not None:
        if not plugins:
            return (
                f"the frame holds a {class_id!r} value, and this registry loads no plug-ins (plugins=False); "
                "register its serializer or use a registry with plug-ins"
            )
        return (
            f"the frame holds a {class_id!r} value, and the library its serializer needs is not installed: "
            f"install it with pip install 'serreg[{extra}]'"
        )
    if class_hash.startswith(MAGIC):  # a whole frame passed where an in-band section goes (with oob_iterator)
        return (
            f"no serializer is registered for ClassIDHash {class_hash.hex()}: these bytes start as a frame does "
            f"({MAGIC!r}); deserialize a frame without oob_iterator, which is for an in-band section and its buffers"
        )
    return (
        f"no serializer is registered for ClassIDHash {class_hash.hex()}; register the class ID the "
        "writer used (or install the plug-in that provides it)"
    )
