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

import copyreg
import sys
from typing import Any, Callable, Optional

__all__ = ["ClassPickles", "ClassUnpickles", "found_by_name", "still_found"]

_CACHE_MAX = 256
_ABSENT = object()


_PARTS_MAX = 4096
_parts: dict[str, list[str]] = {}  # qualified name -> its parts


def _found_by_name(cls: type) -> bool:
    """True if the module and qualified name of ``cls`` lead to it."""
    global _parts
    found: Any = sys.modules.get(cls.__module__, _ABSENT)
    if found is _ABSENT:
        return False
    qualname = cls.__qualname__
    if "." not in qualname:
        return getattr(found, qualname, _ABSENT) is cls
    parts = _parts.get(qualname)
    if parts is None:
        parts = qualname.split(".")
        cache = {} if len(_parts) >= _PARTS_MAX else dict(_parts)
        cache[qualname] = parts
        _parts = cache
    for part in parts:
        found = getattr(found, part, _ABSENT)
        if found is _ABSENT:
            return False
    return found is cls


found_by_name = _found_by_name


def _attributes(cls: type) -> tuple[tuple[str, Any], ...]:
    return tuple(vars(cls).items())


def _same_attributes(cls: type, kept: tuple[tuple[str, Any], ...]) -> bool:
    now = vars(cls)
    return len(now) == len(kept) and all(now.get(name, _ABSENT) is value for name, value in kept)


def still_found(entry: Any) -> bool:
    """Whether the classes of an entry (classes, whether each was led to by its name) that were
    found by name are still found so."""
    classes, by_name = entry
    if len(classes) == 1:
        return not by_name[0] or _found_by_name(classes[0])
    return all(not named or _found_by_name(cls) for cls, named in zip(classes, by_name))


class ClassPickles:
    """The pickle of a tuple of classes, made by ``pickle_classes`` (the fallback's), remembered."""

    def __init__(self, by_value_modules: Callable[[], Any]) -> None:
        self._by_value_modules = by_value_modules
        self._kept: dict[tuple[type, ...], tuple[bytes, list[Any]]] = {}

    def pickle(self, classes: tuple[type, ...], pickle_classes: Callable[[Any], tuple[Any, list[Any]]]) -> Optional[bytes]:
        """The pickle of ``classes`` (None: it has out-of-band buffers, which 10.9 does not allow)."""
        kept = self._kept.get(classes)
        if kept is not None:
            checks = kept[1]
            if len(classes) == 1:
                check = checks[0]
                if _found_by_name(classes[0]) if check is None else _same_attributes(classes[0], check):
                    return kept[0]
            elif all(self._holds(cls, check) for cls, check in zip(classes, checks)):
                return kept[0]
        for cls in classes:
            # What pickling an instance does to its class first (object.__reduce_ex__ caches the class's
            # slot names as __slotnames__), done here too: the frame never pickles an instance, and a
            # class written by value must not change its bytes when someone pickles an instance later.
            copyreg._slotnames(cls)  # type: ignore[attr-defined]
        pickled, buffers = pickle_classes(classes)
        if buffers:
            return None
        data = pickled if type(pickled) is bytes else b"".join(pickled)
        checks = [self._check_of(cls) for cls in classes]
        cache = {} if len(self._kept) >= _CACHE_MAX else dict(self._kept)
        cache[classes] = (data, checks)
        self._kept = cache
        return data

    def by_name(self, classes: tuple[type, ...]) -> Optional[bool]:
        """Whether the one class of ``classes``, pickled and kept, is checked by its name (written by
        reference) rather than by its attributes (by value); None if nothing is kept for it."""
        kept = self._kept.get(classes)
        if kept is None or len(classes) != 1:
            return None
        return kept[1][0] is None

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
        # The pickle read last and its entry.
        self._last: tuple[bytes, tuple[tuple[type, ...], tuple[bool, ...]]] = (b"", ((), ()))

    def classes(self, pickled: Any) -> tuple[tuple[type, ...], tuple[bool, ...]]:
        """(the classes of ``pickled``, whether each was found by its name when read)."""
        last_key, last = self._last
        if len(pickled) == len(last_key) and pickled.tobytes() == last_key and last[0] and still_found(last):
            return last
        key = bytes(pickled)
        kept = self._kept.get(key)
        if kept is not None:
            if still_found(kept):
                self._last = (key, kept)
                return kept
        classes = self._check(self._unpickle(pickled))
        cache = {} if len(self._kept) >= _CACHE_MAX else dict(self._kept)
        cache[key] = entry = (classes, tuple(_found_by_name(cls) for cls in classes))
        self._kept = cache
        self._last = (key, entry)
        return entry
