"""Check a value before it is written with implicit structs: no object met twice, nothing unknown.

``walk(obj, kinds)`` visits every object the codec would write: the items of
lists, tuples, sets and frozensets, the keys and values of dicts, the
``__dict__`` values of plain objects. ``kinds`` says what a type is:
:data:`LEAF` (a registered value: written by its serializer, not looked into),
:data:`PLAIN` (an implicit struct: its ``__dict__`` is looked into) or
:data:`REFUSE`. Every object but an immutable atom (None, bool, int, float,
str, bytes, complex, tuple, frozenset) is remembered by identity; meeting one
again (a shared reference, a cycle) gives up, as does a plain object whose
``__dict__`` is not a dict of str keys, or whose keys differ from those of the
first instance of its class.

Answers: ``(OK, {class: field names})``, ``(GIVE_UP, None)``, or
``(UNKNOWN, obj)`` for an object of a type ``kinds`` does not list (the caller
classifies the type and walks again). The compiled twin (``_walk.c``) gives
the same answers; this one is used without it (``SERREG_PURE_PYTHON=1``).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["COMPILED", "GIVE_UP", "LEAF", "OK", "PLAIN", "REFUSE", "UNKNOWN", "walk", "walk_python"]

LEAF, PLAIN, REFUSE = 0, 1, 2
OK, GIVE_UP, UNKNOWN = 0, 1, 2

_ATOMS = frozenset((type(None), bool, int, float, str, bytes, complex))


def walk_python(obj: Any, kinds: dict[type, int]) -> tuple[int, Any]:
    """The pure-Python walk (see the module's docstring)."""
    seen: set[int] = set()
    found: dict[type, tuple[str, ...]] = {}
    stack = [obj]
    pop, extend = stack.pop, stack.extend
    atoms = _ATOMS
    while stack:
        value = pop()
        kind = type(value)
        if kind in atoms:
            continue
        if kind is tuple or kind is frozenset:
            extend(value)
            continue
        key = id(value)
        if key in seen:
            return GIVE_UP, None
        seen.add(key)
        if kind is list or kind is set:
            extend(value)
        elif kind is dict:
            for item in value.items():
                extend(item)
        else:
            verdict = kinds.get(kind)
            if verdict is None:
                return UNKNOWN, value
            if verdict == REFUSE:
                return GIVE_UP, None
            if verdict == PLAIN:
                state = object.__getattribute__(value, "__dict__")
                if type(state) is not dict or id(state) in seen:
                    return GIVE_UP, None
                seen.add(id(state))
                names = tuple(state)
                known = found.get(kind)
                if known is None:
                    if not all(type(name) is str for name in names):
                        return GIVE_UP, None
                    found[kind] = names
                elif known != names:
                    return GIVE_UP, None
                extend(state.values())
    return OK, found


try:
    if os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("pure Python requested")
    from ._walk import walk

    COMPILED = True
except ImportError:
    walk = walk_python
    COMPILED = False
