"""The default Registry, behind serreg's module-level functions.

``serreg.serialize``, ``serreg.deserialize`` and the other module-level
functions are the methods of :data:`DEFAULT`; ``serreg.default_registry()``
returns it. Modules of serreg that act on it by default (the content-addressed
store, the command line, the integrations) import it from here, never from the
package ``serreg``.
"""

from __future__ import annotations

from typing import Callable, Optional

from .registry import Registry

DEFAULT = Registry()


def default_registry() -> Registry:
    """The Registry behind the module-level functions."""
    return DEFAULT


def configure_dataclasses(registry: Optional[Registry] = None, enabled: bool = True) -> None:
    """Write dataclass instances with ``serreg.dataclass`` instead of the pickle fallback.

    Opt-in: other languages keep such values opaque, and the Java reader cannot
    yet tell which out-of-band buffers a nested ``serreg.dataclass`` value owns
    (docs/FORMAT.md, section 3), so frames for Java should keep the default.
    Every registry can *read* ``serreg.dataclass`` either way. Applies to
    ``registry`` (default: the one behind ``serreg.serialize``).
    """
    (DEFAULT if registry is None else registry).configure_dataclasses(enabled)


register_serializer = DEFAULT.register_serializer
register = DEFAULT.register
unregister_serializer = DEFAULT.unregister_serializer
get_serializer = DEFAULT.get_serializer
register_fallback_serializer = DEFAULT.register_fallback_serializer
serialize = DEFAULT.serialize
deserialize = DEFAULT.deserialize
allow_class_ids = DEFAULT.allow_class_ids
digest = DEFAULT.digest
register_struct = DEFAULT.register_struct


def struct(class_id: str, *, registry: Optional[Registry] = None) -> Callable[[type], type]:
    """Class decorator: ``@serreg.struct("example.Point")`` declares a dataclass, NamedTuple, attrs
    class or msgspec Struct a cross-language struct (docs/FORMAT.md, section 10) on ``registry``
    (default: the default registry). Returns the class unchanged."""
    if not isinstance(class_id, str) or not class_id:
        raise TypeError(f"@serreg.struct needs a class ID (a non-empty str), not {class_id!r}")

    def declare(cls: type) -> type:
        (DEFAULT if registry is None else registry).register_struct(cls, class_id)
        return cls

    return declare
