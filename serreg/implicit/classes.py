"""Which classes are implicit structs: pickle writes their instances as class + ``__new__`` + ``__dict__``.

The verdict is made once per class and remembered (a bounded cache, replaced
whole, so threads need no lock). It is pickle's own rule (``pickles_as_state``
of :mod:`serreg.standard.dataclass`), narrowed to what an implicit struct
rebuilds exactly: metaclass ``type``, object's ``__new__``, and only Python
classes over ``object`` (a subclass of ``list`` or ``dict`` pickles its items
too). Whether the registry serves the class itself is the writer's question.
"""

from __future__ import annotations

from typing import Any

from ..standard import PYOBJECTS_CLASS_ID
from ..standard.dataclass import pickles_as_state

__all__ = ["IMPLICIT_PREFIX", "PYOBJECTS_CLASS_ID", "class_id_of", "qualifies"]

# The class IDs of implicit definitions start with this (reserved: no struct is registered under it).
IMPLICIT_PREFIX = "serreg.pyobject:"

_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (or type())
_VERDICTS_MAX = 4096
_verdicts: dict[type, bool] = {}


def qualifies(cls: type) -> bool:
    """True if instances of ``cls`` may be written as implicit structs (docs/FORMAT.md 10.9)."""
    global _verdicts
    verdict = _verdicts.get(cls)
    if verdict is None:
        verdict = _verdict(cls)
        verdicts = {} if len(_verdicts) >= _VERDICTS_MAX else dict(_verdicts)
        verdicts[cls] = verdict
        _verdicts = verdicts
    return verdict


def _verdict(cls: type) -> bool:
    new: Any = cls.__new__
    if type(cls) is not type or new is not object.__new__:
        return False
    if not all(base is object or base.__flags__ & _HEAPTYPE for base in cls.__mro__):
        return False
    return pickles_as_state(cls)


def class_id_of(cls: type) -> str:
    """The class ID of ``cls``'s implicit definition: the prefix, its module and qualified name."""
    return f"{IMPLICIT_PREFIX}{cls.__module__}:{cls.__qualname__}"
