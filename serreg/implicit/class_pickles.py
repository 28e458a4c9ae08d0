"""The pickled classes of ``serreg.pyobjects`` (docs/FORMAT.md 10.9), made and read once per class.

A frame carries its classes as one pickle, made as the pickle fallback makes it
(by reference, or by value through cloudpickle). Pickling a class by value and
unpickling it cost far more than the instances of a typical frame, so both
sides remember their work per class, and check before each use that it still
holds:

- :class:`ClassPickles` (writing) keeps the pickle of a tuple of classes. It
  is made again when a class is no longer what its module and qualified name
  lead to (for one written by reference), or when an attribute of a class
  written by value was added, removed or rebound (what cloudpickle writes).
- :class:`ClassUnpickles` (reading) keeps, per pickle (its bytes), the classes
  it gave. A class that its module and qualified name led to when it was read
  must still be found there; a class written by value (defined in a function,
  say) is the one cloudpickle gives again anyway (it tracks the classes it
  made by an identifier in the pickle).

Both caches are bounded and replaced whole (no lock needed).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional

__all__ = ["ClassPickles", "ClassUnpickles"]

_CACHE_MAX = 256
_ABSENT = object()


def _found_by_name(cls: type) -> bool:
    """True if the module and qualified name of ``cls`` lead to it."""
    found: Any = sys.modules.get(cls.__module__, _ABSENT)
    if found is _ABSENT:
        return False
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, _ABSENT)
        if found is _ABSENT:
            return False
    return found is cls


def _attributes(cls: type) -> tuple[tuple[str, Any], ...]:
    return tuple(vars(cls).items())


def _same_attributes(cls: type, kept: tuple[tuple[str, Any], ...]) -> bool:
    now = vars(cls)
    return len(now) == len(kept) and all(now.get(name, _ABSENT) is value for name, value in kept)


class ClassPickles:
    """The pickle of a tuple of classes, made by ``pickle_classes`` (the fallback's), remembered."""

    def __init__(self, by_value_modules: Callable[[], Any]) -> None:
        self._by_value_modules = by_value_modules
        self._kept: dict[tuple[type, ...], tuple[bytes, list[Any]]] = {}

    def pickle(self, classes: tuple[type, ...], pickle_classes: Callable[[Any], tuple[Any, list[Any]]]) -> Optional[bytes]:
        """The pickle of ``classes`` (None: it has out-of-band buffers, which 10.9 does not allow)."""
        kept = self._kept.get(classes)
        if kept is not None and all(self._holds(cls, check) for cls, check in zip(classes, kept[1])):
            return kept[0]
        pickled, buffers = pickle_classes(classes)
        if buffers:
            return None
        data = pickled if type(pickled) is bytes else b"".join(pickled)
        checks = [self._check_of(cls) for cls in classes]
        cache = {} if len(self._kept) >= _CACHE_MAX else dict(self._kept)
        cache[classes] = (data, checks)
        self._kept = cache
        return data

    def _check_of(self, cls: type) -> Any:
        """What must stay true of ``cls``: None (led to by its name: written by reference), or its attributes."""
        modules = self._by_value_modules() or ()
        if cls.__module__ != "__main__" and cls.__module__ not in modules and _found_by_name(cls):
            return None
        return _attributes(cls)

    @staticmethod
    def _holds(cls: type, check: Any) -> bool:
        return _found_by_name(cls) if check is None else _same_attributes(cls, check)


class ClassUnpickles:
    """The classes of a pickle, unpickled by ``unpickle`` (the fallback's) and checked by ``check``, remembered."""

    def __init__(self, unpickle: Callable[[Any], Any], check: Callable[[Any], tuple[type, ...]]) -> None:
        self._unpickle = unpickle
        self._check = check
        self._kept: dict[bytes, tuple[tuple[type, ...], tuple[bool, ...]]] = {}

    def classes(self, pickled: Any) -> tuple[type, ...]:
        key = bytes(pickled)
        kept = self._kept.get(key)
        if kept is not None:
            classes, by_name = kept
            if all(not named or _found_by_name(cls) for cls, named in zip(classes, by_name)):
                return classes
        classes = self._check(self._unpickle(pickled))
        cache = {} if len(self._kept) >= _CACHE_MAX else dict(self._kept)
        cache[key] = (classes, tuple(_found_by_name(cls) for cls in classes))
        self._kept = cache
        return classes
