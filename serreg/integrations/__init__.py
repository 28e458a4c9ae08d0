"""Integrations with cluster frameworks, one module per framework.

``serreg.integrations.dask`` and ``serreg.integrations.ray`` import their
framework; serreg's core never imports them.
"""

from __future__ import annotations

from ..errors import UnknownClassIDError


def has_own_serializer(registry, value) -> bool:
    """True when ``registry`` has a serializer of its own (not the fallback) that takes ``value``.

    Plug-ins serving the value's module are loaded first.
    """
    try:
        serializer = registry.get_serializer(type(value))
    except UnknownClassIDError:
        return False
    accepts = getattr(serializer, "accepts", None)
    return accepts is None or bool(accepts(value))
