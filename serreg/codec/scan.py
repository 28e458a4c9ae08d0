"""Does a list/dict tree hold a value of one of some exact types?

msgpack packs ``bytearray`` and ``memoryview`` as plain bin without calling
the codec, which would bring them back as ``bytes``; the codec asks this scan
first and rewrites only the trees that need it. The compiled ``serreg.codec._scan``
gives the same answers as the pure-Python version here, which is used when
the extension is not built (or ``SERREG_PURE_PYTHON=1``); the tests run both.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["COMPILED", "holds_any", "holds_any_python"]

_MAX_DEPTH = 2000


def holds_any_python(obj: Any, types: tuple[Any, ...]) -> bool:
    """Pure-Python scan; too deep or cyclic trees answer True so the slow path reports them."""
    special = frozenset(types)
    stack = [(obj, 0)]
    while stack:
        node, depth = stack.pop()
        kind = type(node)
        if kind in special or depth > _MAX_DEPTH:
            return True
        if kind is list:
            kinds = set(map(type, node))
            children = node
        elif kind is dict:
            kinds = set(map(type, node))
            kinds.update(map(type, node.values()))
            children = [*node, *node.values()]
        else:
            continue
        if not kinds.isdisjoint(special):
            return True
        if list in kinds or dict in kinds:
            stack.extend((child, depth + 1) for child in children if type(child) is list or type(child) is dict)
    return False


try:
    if os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("pure Python requested")
    from ._scan import holds_any, set_fallback

    set_fallback(holds_any_python)  # trees deeper than the C recursion goes (48) are scanned in Python
    COMPILED = True
except ImportError:
    holds_any = holds_any_python
    COMPILED = False
