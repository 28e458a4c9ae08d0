"""``serreg.dataclass``: dataclass instances written as class reference + state (Python only).

Switched on per registry (``serreg.configure_dataclasses``); every registry
can read it. docs/FORMAT.md, section 6.1.
"""

from __future__ import annotations

import copyreg
import dataclasses
import importlib
import sys

from ..errors import DeserializationError
from ..result import SerializationResult
from .base import StandardSerializer
from typing import Union, Iterator, Any

__all__ = ["DataclassSerializer", "pickled_by_reference", "pickles_as_state"]

_OBJECT_GETSTATE = getattr(object, "__getstate__", None)  # Python 3.11+
_VERDICTS_MAX = 4096  # classes remembered by DataclassSerializer; dynamic classes must not pile up


def pickled_by_reference(cls: type) -> bool:
    """True if pickle would write ``cls`` by reference and its instances as ``__new__`` + ``__dict__``.

    Those are exactly the instances whose type and state this serializer can
    write the way pickle does: the class is found again by module and
    qualified name, and nothing in the class changes how it pickles.
    """
    if not dataclasses.is_dataclass(cls) or cls.__module__ == "__main__" or cls in copyreg.dispatch_table:
        return False
    found: Any = sys.modules.get(cls.__module__)
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    if found is not cls:
        return False  # defined in a function, or not reachable under its name
    return pickles_as_state(cls)


def pickles_as_state(cls: Any) -> bool:
    """True if nothing in ``cls`` changes how pickle writes its instances: ``cls.__new__(cls)`` plus
    the instance's ``__dict__`` (object's ``__reduce_ex__``, ``__reduce__`` and ``__getstate__``; no
    ``__setstate__``, ``__getnewargs__``, ``__getnewargs_ex__``, ``__slots__`` or ``copyreg`` entry)."""
    if cls in copyreg.dispatch_table:
        return False
    if cls.__reduce_ex__ is not object.__reduce_ex__ or cls.__reduce__ is not object.__reduce__:
        return False
    if getattr(cls, "__getstate__", None) is not _OBJECT_GETSTATE:
        return False
    if any(hasattr(cls, name) for name in ("__setstate__", "__getnewargs__", "__getnewargs_ex__")):
        return False
    return all("__slots__" not in vars(base) for base in cls.__mro__[:-1])


class DataclassSerializer(StandardSerializer):
    """Instances of dataclasses that have no serializer of their own (Python only).

    In-band: [class: "module:qualname", state: the instance's ``__dict__``]
    (docs/FORMAT.md, section 6.1). It keeps what pickle keeps (the exact class,
    every attribute), but the values are written by the codec, so registered
    serializers apply to them and plain values need no pickle machinery.
    Dataclasses that pickle differently (slots, a custom ``__reduce__`` or
    ``__getstate__``, classes defined in ``__main__`` or in a function) are
    left to the fallback. Reading a frame imports the class's module, as
    unpickling does: decode only frames you trust.

    Thread safety: the per-class verdict cache is a dict replaced whole.
    """

    handled_by_pickle = True

    def __init__(self, codec: Any) -> None:
        super().__init__(codec)
        self._verdicts: dict[Any, Any] = {}  # class -> its "module:qualname", or False
        self._classes: dict[Any, Any] = {}  # "module:qualname" -> (module, class), for reading

    def accepts(self, obj: Any) -> bool:
        cls = type(obj)
        verdict = self._verdicts.get(cls)
        if verdict is None:
            verdict = self._verdict(cls)
        return verdict is not False and type(getattr(obj, "__dict__", None)) is dict

    def _verdict(self, cls: type) -> Union[str, bool]:
        """False, or the class reference written on the wire."""
        verdict = f"{cls.__module__}:{cls.__qualname__}" if pickled_by_reference(cls) else False
        verdicts = {} if len(self._verdicts) >= _VERDICTS_MAX else dict(self._verdicts)
        verdicts[cls] = verdict
        self._verdicts = verdicts
        return verdict

    def serialize(self, obj: Any) -> SerializationResult:
        cls = type(obj)
        reference = self._verdicts.get(cls) or self._verdict(cls)
        oob: list[Any] = []
        return SerializationResult(self.codec.pack([reference, obj.__dict__], oob), oob)

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> Any:
        fields = self.unpack_array(in_band, oob, "dataclass", 2)
        reference, state = fields
        if type(reference) is not str or ":" not in reference:
            raise DeserializationError(f"a dataclass reference must be a str 'module:qualname', got {reference!r}")
        if type(state) is not dict:
            raise DeserializationError(f"the state of {reference} must be a map")
        found = self._classes.get(reference)
        if found is not None and sys.modules.get(found[0].__name__) is found[0]:
            cls = found[1]
        else:
            cls = self._find_dataclass(reference)
        obj = cls.__new__(cls)
        obj.__dict__.update(state)
        return obj

    def _find_dataclass(self, reference: str) -> type:
        module_name, _, qualname = reference.partition(":")
        try:
            module = sys.modules.get(module_name) or importlib.import_module(module_name)
        except ImportError as error:
            raise DeserializationError(f"cannot import the module of dataclass {reference}: {error}") from error
        found: Any = module
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if not isinstance(found, type) or not pickled_by_reference(found):
            raise DeserializationError(f"{reference} is not a dataclass that serreg.dataclass can rebuild")
        # Remembered with its module, so a reloaded module is looked up afresh.
        classes = {} if len(self._classes) >= _VERDICTS_MAX else dict(self._classes)
        classes[reference] = (module, found)
        self._classes = classes
        return found
