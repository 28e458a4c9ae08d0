"""Implicit structs: plain Python objects nobody declared, written as struct instances (docs/FORMAT.md 10.9).

Where the pickle fallback would pickle a whole value, the writer first tries to
write it with its plain objects (dataclasses, ordinary class instances) as
struct instances whose fields are their ``__dict__``, the classes pickled once
per frame (``serreg.pyobjects``). :mod:`.classes` says which classes qualify,
:mod:`.walk` checks a value (no object shared, nothing else), :mod:`.schema`
writes and reads one class, :mod:`.class_pickles` pickles and unpickles the
classes, :mod:`.writer` makes the frame, :mod:`.reader` reads it and
:mod:`.install` gives a registry both.
"""

from __future__ import annotations

from .classes import IMPLICIT_PREFIX, PYOBJECTS_CLASS_ID, qualifies

__all__ = ["IMPLICIT_PREFIX", "PYOBJECTS_CLASS_ID", "qualifies"]
