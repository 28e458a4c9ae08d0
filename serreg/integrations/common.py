"""What the cluster integrations share: does serreg have a serializer of its own for a value?"""

from __future__ import annotations

from ..errors import UnknownClassIDError
from ..registry import Registry
from ..serializer import takes


def has_own_serializer(registry: Registry, value: object) -> bool:
    """True when ``registry`` has a serializer of its own (not the fallback) that takes ``value``.

    Plug-ins serving the value's module are loaded first.
    """
    try:
        serializer = registry.get_serializer(type(value))
    except UnknownClassIDError:
        return False
    return takes(serializer, value)
