"""Lists of struct instances of one definition: msgpack ext 2, the fields by columns (docs/FORMAT.md, 10.3).

``make_list_writer`` makes, per definition, ``write(items, state)``: the
``ExtType(2, [index, count, c_0, ..., c_{n-1}])`` of a list of instances (a
registered class's or carriers sharing one definition), each value checked
by its field's converter (the errors name struct, field and value). Integer,
float and bool columns are bins (:mod:`serreg.structs.columns`); every other
column is a msgpack array packed by the codec's ``state.pack_inner``.

``read_struct_list(payload, ext_hook, pairs_hook)`` reads an ext 2 payload
inside a struct table: it checks the index, the count against the bytes
left, each column, and builds every instance with the definition's reader
(the same classes, evolution, defaults and carriers as ext 1 instances).
Any other value in the payload is refused naming the struct, the field and
the byte offset inside the payload.

Struct classes that the compiled codec writes without a plan (and the
compiled codec, until it writes ext 2 itself) reach these writers through the
registry's ``list_writers`` table: ``list_writers[type(items[0])](items,
state)``, with ``state`` the pure codec's pack state.
"""

from __future__ import annotations

from itertools import repeat
from typing import TYPE_CHECKING, Any, Callable

from msgpack import ExtType, Unpacker, packb
from msgpack.exceptions import ExtraData, OutOfData

from ..codec.layout import STRUCT_LIST_EXT_TYPE, array_header
from ..errors import DeserializationError, SerializationError, SerregError
from .columns import (
    BIN_COLUMN_KINDS, ColumnError, bin_header, decode_bools, decode_floats, decode_ints, encode_bools, encode_float32,
    encode_float64, encode_ints,
)
from .scope import DECODE_SCOPE, ENCODE_SCOPE
from .widths import INTEGER_WIDTHS

if TYPE_CHECKING:
    from .types import FieldType

__all__ = ["make_list_writer", "read_struct_list"]

_new_tuple = tuple.__new__
# The bin headers a bin column may start with (bin 8, bin 16, bin 32) and their sizes.
_BIN_HEADERS = {0xC4: 2, 0xC5: 3, 0xC6: 5}

# (items, field position) -> that field's values of every item, in order.
ColumnOf = Callable[[list[Any], int], list[Any]]


# ---------------------------------------------------------------------------------- writing


def make_list_writer(key: Any, definition: bytes, class_id: str, names: list[str], types: tuple[FieldType, ...],
                     converters: list[Any], column_of: ColumnOf) -> Callable[[list[Any], Any], Any]:
    """``write(items, state) -> ExtType(2, payload)`` for lists of instances of one definition (at least one field)."""
    writers = [_column_writer(t, c) for t, c in zip(types, converters)]
    head = array_header(2 + len(writers))

    def write(items: list[Any], state: Any) -> Any:
        scope = ENCODE_SCOPE.get()
        if scope is None:
            raise SerializationError(
                "a struct can only be written by serreg.serialize (it needs the frame's struct table)"
            )
        index = scope.index.get(key)
        if index is None:
            index = scope.add(key, definition)  # before any value of its columns (first use, 10.3)
        parts = [head, packb(index), packb(len(items))]
        for position, write_column in enumerate(writers):
            parts.append(write_column(column_of(items, position), state))
        return _new_tuple(ExtType, (STRUCT_LIST_EXT_TYPE, b"".join(parts)))
    return write


def _column_writer(ftype: FieldType, convert: Any) -> Callable[[list[Any], Any], bytes]:
    """``write(values, state) -> bytes``: one column, its values checked by ``convert`` (which raises)."""
    kind = ftype.kind
    width = INTEGER_WIDTHS.get(kind)
    if width is not None:
        low, high = width.low, width.high

        def write_ints(values: list[Any], state: Any) -> bytes:
            if set(map(type, values)) != {int} or min(values) < low or max(values) > high:
                for value in values:
                    convert(value, state)  # raises for the first value outside the field's type
            data = encode_ints(values)
            return bin_header(len(data)) + data
        return write_ints
    if kind == "float64":
        def write_float64(values: list[Any], state: Any) -> bytes:
            if set(map(type, values)) != {float}:
                values = [convert(value, state) for value in values]
            data = encode_float64(values)
            return bin_header(len(data)) + data
        return write_float64
    if kind == "float32":
        def write_float32(values: list[Any], state: Any) -> bytes:
            try:
                if set(map(type, values)) != {float}:
                    raise OverflowError
                data = encode_float32(values)  # rounds each value to the nearest binary32, as the converter does
            except OverflowError:
                data = encode_float32([convert(value, state) for value in values])  # converts ints, names a bad value
            return bin_header(len(data)) + data
        return write_float32
    if kind == "bool":
        def write_bools(values: list[Any], state: Any) -> bytes:
            if set(map(type, values)) != {bool}:
                for value in values:
                    convert(value, state)
            data = encode_bools(values)
            return bin_header(len(data)) + data
        return write_bools

    def write_array(values: list[Any], state: Any) -> bytes:
        packed: bytes = state.pack_inner([convert(value, state) for value in values])
        return packed
    return write_array


# ---------------------------------------------------------------------------------- reading


def read_struct_list(payload: Any, ext_hook: Any, pairs_hook: Any) -> list[Any]:
    """The instances of one ext 2 payload, read with the table in scope (``ext_hook`` reads the values inside)."""
    scope = DECODE_SCOPE.get()
    if scope is None:
        raise DeserializationError("a list of struct instances (msgpack ext 2) outside any struct table (serreg.structs)")
    size = len(payload)
    unpacker = Unpacker(None, ext_hook=ext_hook, strict_map_key=False, object_pairs_hook=pairs_hook,
                        max_buffer_size=max(size, 1))
    unpacker.feed(payload)
    where = "a list of struct instances (msgpack ext 2)"
    at = 0
    try:
        length = unpacker.read_array_header()
        if length < 2:
            raise DeserializationError(f"{where} must be an array [index, count, columns...], not of {length} items")
        at = unpacker.tell()
        index = unpacker.unpack()
        if type(index) is not int or not 0 <= index < len(scope.layouts):
            raise DeserializationError(
                f"{where} names definition {index!r}, but the table holds {len(scope.layouts)} (byte {at} of its payload)"
            )
        class_id, names, types = scope.layouts[index]
        where = f"struct {class_id!r}: a list of its instances (msgpack ext 2)"
        if not names:
            raise DeserializationError(f"{where}: its definition has no fields, so its lists are arrays")
        if length != 2 + len(names):
            raise DeserializationError(
                f"{where} is an array of {length} items; its definition's {len(names)} field(s) make {2 + len(names)}"
            )
        at = unpacker.tell()
        count = unpacker.unpack()
        if type(count) is not int or count < 1 or count > size - unpacker.tell():
            raise DeserializationError(
                f"{where} declares {count!r} instances; a count is at least 1 and at most the {size - unpacker.tell()} "
                f"bytes left (byte {at} of its payload)"
            )
        columns = [_read_column(unpacker, payload, count, class_id, name, ftype) for name, ftype in zip(names, types)]
        if unpacker.tell() != size:
            raise DeserializationError(f"{where}: {size - unpacker.tell()} bytes left over after its last column")
    except SerregError:
        raise
    except (OutOfData, ExtraData, ValueError, TypeError, UnicodeDecodeError) as error:
        raise DeserializationError(f"{where} is not valid msgpack after byte {at} of its payload: "
                                   f"{type(error).__name__}: {error}") from error
    # Each instance is read as an ext 1 array would be: (index, v_0, ..., v_{n-1}).
    return list(map(scope.readers[index], zip(repeat(index), *columns)))


def _read_column(unpacker: Any, payload: Any, count: int, class_id: str, name: str, ftype: FieldType) -> list[Any]:
    at = unpacker.tell()
    kind = ftype.kind

    def refuse(message: str, offset: int = at) -> DeserializationError:
        return DeserializationError(
            f"struct {class_id!r}, field {name!r}: its ext 2 column {message} (byte {offset} of the ext 2 payload)"
        )

    if kind not in BIN_COLUMN_KINDS:
        try:
            length = unpacker.read_array_header()
        except ValueError:
            raise refuse(f"of type {ftype!r} must be a msgpack array") from None
        if length != count:
            raise refuse(f"holds {length} values, the list {count}")
        return [unpacker.unpack() for _ in range(count)]
    first = payload[at] if at < len(payload) else None
    header = _BIN_HEADERS.get(first)  # type: ignore[arg-type]
    if header is None:
        raise refuse(f"of type {ftype!r} must be a msgpack bin")
    data = bytes(unpacker.unpack())
    try:
        width = INTEGER_WIDTHS.get(kind)
        if width is not None:
            assert width.low is not None and width.high is not None  # integer widths have a range
            return decode_ints(data, count, width.low, width.high)
        if kind == "bool":
            return decode_bools(data, count)
        return decode_floats(data, count, kind)
    except ColumnError as error:
        raise refuse(f"({ftype!r}): {error.message}", at + header + error.at) from None
