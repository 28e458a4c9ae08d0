"""The compiled codec: the C core (``_core.c``) set up for serreg.

``MsgpackCodec`` here takes the same arguments as the pure-Python one in
``pure.py`` and gives the same bytes, values and errors. The C core is handed
the pure codec, which it calls for what it does not handle itself: values it
does not know, and every document it finds something wrong with (so errors
are worded exactly as the pure codec words them). It is told once the
ClassIDHashes of the standard types it writes and reads in place, where a
deserialize call keeps its state (trust, depth, budget), the result class
its top-level entries build and read (``_core_top.h``, twin ``top.py``), what
the entry of a value read by its serializer builds a call's state from
(``_core_top_value.h``, twin ``Decoder._top_value``), and
where a call keeps its struct table (``StructPlan`` is how it writes and reads
one struct class). ``top_method`` makes ``Registry.serialize`` and
``deserialize`` C methods that call the codec first (``_core_entry.h``).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, TypeVar

from ..errors import DeserializationError, LimitExceededError
from ..limits import DECODE_STATE, DecodeState
from ..standard import STRUCTS_CLASS_ID
from ..wire.class_id import class_id_hash
from ._core import MsgpackCodec as CoreCodec
from ..result import NO_BUFFERS, OutOfBandBuffers, SerializationResult
from ._core import (
    StructPlan, set_class_hashes, set_decode_state, set_implicit_state, set_struct_state, set_top_level, set_top_value,
)
from ._core import top_method as core_top_method
from .checks import check_hash_spread
from ..wire.frame import COMPILED as FRAME_COMPILED
from .layout import BYTES_OUT_OF_BAND_THRESHOLD
from .pack_state import EncodeNested
from .pure import DecodeNested, SnapshotSource
from .pure import MsgpackCodec as PureMsgpackCodec
from ..structs.scope import DECODE_SCOPE, ENCODE_SCOPE, IMPLICIT_TABLES, read_instance

__all__ = ["MsgpackCodec", "StructPlan", "top_method"]

_Method = TypeVar("_Method", bound=Callable[..., Any])

# The C core writes a list of struct instances of one definition as ext 2 (docs/FORMAT.md 10.3)
# for classes with a plan. A list of instances of a class without a plan (or of
# carriers) met in a pack call is handed whole to the pure codec the core holds: ``pure.pack(items,
# oob)`` returns the msgpack bytes of its ext 2 (or of its array, when the rule says so), taking the
# definition's index from the same frame table and appending the columns' buffers to ``oob`` in
# column order (the writers behind it are the registry's ``list_writers``, serreg/structs/lists.py).

# The standard class IDs the C core writes and reads in place (serreg/standard/__init__.py has them all).
IN_PLACE_CLASS_IDS = (
    "tuple", "set", "frozenset", "bytearray", "complex", "datetime", "date", "time", "timedelta", "uuid", "int",
)

set_class_hashes({class_id: class_id_hash(class_id) for class_id in IN_PLACE_CLASS_IDS})
set_decode_state(DECODE_STATE, DeserializationError, check_hash_spread, LimitExceededError)
# Results without buffers are left untracked by the garbage collector when the result's compiled
# twin (wire/_frame.c: track) tracks them once they are given a container (serreg/result.py).
set_top_level(SerializationResult, {"float": class_id_hash("float"), "bytes": class_id_hash("bytes")},
              BYTES_OUT_OF_BAND_THRESHOLD, FRAME_COMPILED)
set_top_value(DecodeState, OutOfBandBuffers, NO_BUFFERS)


class _CheckState:
    """What a struct field's Python writer is called with when the C core's check refused the value:
    the writer only checks it (and raises the error serreg words) or converts a scalar; values of
    type ``any`` inside are left as they are (the C core writes them)."""

    __slots__ = ()

    def any_value(self, value: object) -> object:
        return value

    def sort_key(self, value: object) -> bytes:
        return b""

    def struct_list(self, items: object) -> None:
        return None  # the C core writes the list itself


set_struct_state(ENCODE_SCOPE, DECODE_SCOPE, read_instance, _CheckState(), class_id_hash(STRUCTS_CLASS_ID))
set_implicit_state(IMPLICIT_TABLES)  # a value written with implicit structs: the tables a pack reads (10.9)


class MsgpackCodec(CoreCodec):
    """Packs and unpacks value trees for one registry, in C (see ``pure.MsgpackCodec``)."""

    def __init__(self, encode_nested: EncodeNested, decode_nested: DecodeNested, snapshots: SnapshotSource) -> None:
        super().__init__(encode_nested, decode_nested, snapshots, PureMsgpackCodec(encode_nested, decode_nested, snapshots))

    def pack_array(self, items: Iterable[object], oob: list[object]) -> bytes:
        """Pack a sequence as a msgpack array, never as ext 2 (a tuple's in-band, docs/FORMAT.md 10.3)."""
        packed: bytes = self.pack(list(items), oob, False)
        return packed


def top_method(kind: str) -> Callable[[_Method], _Method]:
    """Decorates ``Registry.serialize`` (kind "serialize") or ``deserialize``: called with the value
    alone, the method calls the registry's codec (bound by ``bind_registry``) with no Python frame
    in between; with anything else, the decorated Python method itself. Bound to a registry, it is a
    builtin method whose text signature is the Python method's without annotations (``text_signature``)."""

    def decorate(method: _Method) -> _Method:
        made: _Method = core_top_method(kind, method, text_signature(method))
        return made

    return decorate


def text_signature(method: Callable[..., Any]) -> str:
    """``method``'s signature as a builtin's ``__text_signature__``: its first parameter ``$self``,
    no annotations (which a text signature cannot hold)."""
    signature = inspect.signature(method)
    parameters = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    if not parameters or parameters[0].kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        raise TypeError(f"{method.__qualname__} takes no self")
    bare = signature.replace(parameters=parameters[1:], return_annotation=inspect.Signature.empty)
    rest = str(bare)[1:-1]
    return f"($self{', ' if rest else ''}{rest})"
