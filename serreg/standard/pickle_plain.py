"""pickle's own Pickler, for the values cloudpickle's Pickler would write exactly as it does.

cloudpickle's Pickler differs from pickle's in three things only: it writes
some classes and functions by value (those of ``__main__``, of modules
registered with ``cloudpickle.register_pickle_by_value``, dynamic and local
ones), it has reducers of its own for a few types (its dispatch table, looked
up before copyreg's), and it asks a Python ``reducer_override`` about every
object pickle does not write by itself. For a value made only of

- objects of types whose instances nobody but pickle reduces (not a class, not
  a function, not one of cloudpickle's own reducers, not a type registered
  with the registry: the type-level verdicts of :class:`PlainPickler`), and
- classes and functions cloudpickle was seen to write by reference (the
  serializer's remembered verdicts, kept while the set of modules registered to
  be pickled by value stays the same),

both Picklers write the same bytes: pickle's own way, copyreg's dispatch table
included (cloudpickle consults it too, after its own reducers). PlainPickler's
``reducer_override`` answers at once for those what pickle would do next
(NotImplemented; for a type not in copyreg's table, ``__reduce_ex__(5)``
straight away, which saves pickle a bound method per object). Anything else raises :class:`NotPlain` before a byte of
it is written; the serializer then pickles the value with cloudpickle's Pickler
(which also writes registered values inside the pickle through their
serializers, and learns the verdicts this Pickler needs). A remembered
verdict gone stale (a class rebound under its name) makes pickle's own check
fail (PicklingError): the serializer then does the same.
"""

from __future__ import annotations

import pickle
import types
from typing import Any, Callable, Protocol

__all__ = ["NotPlain", "PlainPickler", "PlainTables"]

_FunctionType = types.FunctionType


class NotPlain(Exception):
    """Raised inside a PlainPickler's pickle: this value needs cloudpickle's Pickler."""


class PlainTables(Protocol):
    """What a PlainPickler reads from its owner (the serializer) for every object it asks about."""

    plain_reduces: set[type]  # types whose instances pickle reduces with __reduce_ex__, the same for cloudpickle
    verdicts: dict[Any, bool]  # classes and functions cloudpickle writes by reference

    def plain_verdict(self, obj: Any, cls: type) -> Any:
        """Any other object: NotImplemented (the type may be added to ``plain_reduces``) or NotPlain."""


class _Sink:
    """The Pickler's file: what pickle writes (the whole pickle at the end of a small one, or
    frames and large payloads as it goes) is appended to a list, not copied into a BytesIO."""

    __slots__ = ("write",)

    def __init__(self, write: Callable[[Any], object]) -> None:
        self.write = write


class PlainPickler(pickle.Pickler):
    """One pickle at a time, made again and again: what pickle writes goes to ``chunks``, the
    out-of-band buffers to ``buffers``; the owner empties both and the memo before keeping it idle.

    Its ``reducer_override`` is a plain function (no bound method made per object) reading
    the owner's tables as they are (the owner replaces them whole when they go stale).
    """

    def __init__(self, owner: PlainTables) -> None:
        self.chunks: list[Any] = []
        self.buffers: list[pickle.PickleBuffer] = []
        # Looked up by pickle's dump (an instance attribute: no bound method made per object).
        self.reducer_override = _reducer_override(owner)  # type: ignore[method-assign]
        super().__init__(_Sink(self.chunks.append), protocol=5, buffer_callback=self.buffers.append)


def _reducer_override(owner: PlainTables) -> Callable[[Any], Any]:
    def reducer_override(obj: Any) -> Any:
        cls = type(obj)
        if cls in owner.plain_reduces:
            return obj.__reduce_ex__(5)  # what pickle would do next: not in copyreg's table, not a class
        if (cls is type or cls is _FunctionType) and obj in owner.verdicts:
            return NotImplemented  # pickle writes its module and name (and checks they lead back to it)
        return owner.plain_verdict(obj, cls)

    return reducer_override
