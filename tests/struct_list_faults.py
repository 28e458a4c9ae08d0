"""Hostile lists of struct instances (ext 2, docs/FORMAT.md 10.3) whose ``any`` columns hold a fault
after a nested value: written out byte by byte, with the words the pure codec refuses each with.

``AnyTwo`` has two fields of type ``any``; a frame is ``[.., ext 2 of AnyTwo]`` under a struct table
defining it as registered, so the compiled codec reads the columns in C (its frames), and a decimal
(a nested value, decoded by its serializer) comes before the fault: in the column, or in the list
around the ext 2. ``FAULTS`` maps a name to (frame, words trusted, words untrusted, type of the
error's cause or None).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import msgpack

import serreg
from serreg.wire.class_id import CLASS_ID_HASH_SIZE, class_id_hash

__all__ = ["AnyTwo", "FAULTS", "GOOD", "INSTANCE_FAULTS", "register_any_two"]


@dataclasses.dataclass
class AnyTwo:
    a: Any
    b: Any


def register_any_two(registry: serreg.Registry) -> serreg.Registry:
    registry.register_struct(AnyTwo, "t.AnyTwo")
    return registry


# Decimal("1.5") as a nested value: ext 0 of ClassIDHash('decimal') + its in-band "1.5".
DECIMAL = b"\xc7\x0c\x00" + class_id_hash("decimal") + b"\xa31.5"
_DEFINITION = msgpack.packb([["t.AnyTwo", [["a", "any"], ["b", "any"]]]])
_TIMESTAMP = b"\xd6\xff\x00\x00\x00\x01"  # Timestamp(1, 0): 4 bytes


def _ext(kind: int, payload: bytes) -> bytes:
    assert len(payload) < 256
    return b"\xc7" + bytes([len(payload)]) + bytes([kind & 0xFF]) + payload


def frame(a: list[bytes], b: list[bytes], before: Optional[bytes] = None) -> bytes:
    """A list holding ``before`` (if any) and an ext 2 of 2 AnyTwo, columns a and b (2 msgpack values each)."""
    payload = b"\x94\x00\x02" + b"\x92" + b"".join(a) + b"\x92" + b"".join(b)
    inner = (b"\x91" if before is None else b"\x92" + before) + _ext(2, payload)
    in_band = class_id_hash("serreg.structs") + _DEFINITION + class_id_hash("list") + inner
    return serreg.SerializationResult(in_band).to_bytes()


_ONE = b"\x01"
# The list after the struct table, whose reader refuses the column or instance: the first byte of
# its in-band (32-byte header, table section, the list's ClassIDHash), as Java names a value its
# serializer refuses where no byte within it is named (docs/FORMAT.md, 4.1).
_LIST_IN_BAND = 32 + 2 * CLASS_ID_HASH_SIZE + len(_DEFINITION)
_WHERE = f" (class ID 'list', byte offset {_LIST_IN_BAND}, inside serreg.structs)"
_LIST = "struct 't.AnyTwo': a list of its instances (msgpack ext 2) is not valid msgpack after byte 2 of its payload: "
_UNHASHABLE_LIST = _LIST + "TypeError: unhashable type: 'list'" + _WHERE
_TIMESTAMP_FIELD = "t.AnyTwo.a: msgpack ext type -1 (timestamp) is not used by serreg" + _WHERE
_LIST_KEY = b"\x81\x92\x01\x02\x01"  # {[1, 2]: 1}
_MANY_KEYS = b"\xde\x00\x46" + b"".join(bytes([i, 0]) for i in range(69)) + b"\x92\x01\x02\x01"  # 70 keys, the last [1, 2]

GOOD = frame([DECIMAL, b"\x81\xa1k\x01"], [_ONE, _ONE])  # [[AnyTwo(Decimal("1.5"), 1), AnyTwo({"k": 1}, 1)]]

FAULTS: dict[str, tuple[bytes, str, str, Optional[type]]] = {
    "list as a map key": (frame([DECIMAL, _LIST_KEY], [_ONE, _ONE]), _UNHASHABLE_LIST, _UNHASHABLE_LIST, TypeError),
    "list as a map key, the decimal around the ext 2": (
        frame([_LIST_KEY, _ONE], [_ONE, _ONE], before=DECIMAL), _UNHASHABLE_LIST, _UNHASHABLE_LIST, TypeError),
    "map as a map key": (frame([DECIMAL, b"\x81\x80\x01"], [_ONE, _ONE]),
                         _LIST + "TypeError: unhashable type: 'dict'" + _WHERE,
                         _LIST + "TypeError: unhashable type: 'dict'" + _WHERE, TypeError),
    "list as a key of a map in a map": (
        frame([DECIMAL, b"\x81\xa1k" + _LIST_KEY], [_ONE, _ONE]), _UNHASHABLE_LIST, _UNHASHABLE_LIST, TypeError),
    "list as the second key": (
        frame([DECIMAL, b"\x82\x01\x01\x92\x01\x02\x01"], [_ONE, _ONE]), _UNHASHABLE_LIST, _UNHASHABLE_LIST, TypeError),
    "list as a map key in an instance in a column": (
        frame([DECIMAL, _ext(1, b"\x93\x00" + _LIST_KEY + b"\x01")], [_ONE, _ONE]),
        _UNHASHABLE_LIST, _UNHASHABLE_LIST, TypeError),
    "list as the last of 70 keys": (  # untrusted: the hash-flooding check's words
        frame([DECIMAL, _MANY_KEYS], [_ONE, _ONE]), _UNHASHABLE_LIST,
        "a map key or member is not hashable: unhashable type: 'list'" + _WHERE, TypeError),
    "list as a map key, then ext 5 in that map": (  # trusted, a pair is refused as soon as it is read
        frame([DECIMAL, b"\x82\x92\x01\x02\x01\x01" + _ext(5, b"12345")], [_ONE, _ONE]), _UNHASHABLE_LIST,
        "msgpack ext type 5 is not used by serreg (only ext 0, nested value, ext 1, struct, and ext 2, list of "
        "structs)" + _WHERE, None),
    "timestamp": (frame([DECIMAL, _TIMESTAMP], [_ONE, _ONE]), _TIMESTAMP_FIELD, _TIMESTAMP_FIELD, None),
    "timestamp in a list": (frame([DECIMAL, b"\x92\x01" + _TIMESTAMP], [_ONE, _ONE]), _TIMESTAMP_FIELD, _TIMESTAMP_FIELD, None),
    "timestamp as a map key": (frame([DECIMAL, b"\x81" + _TIMESTAMP + b"\x01"], [_ONE, _ONE]),
                               _TIMESTAMP_FIELD, _TIMESTAMP_FIELD, None),
    "timestamp in an instance in a column": (
        frame([DECIMAL, _ext(1, b"\x93\x00" + _TIMESTAMP + b"\x01")], [_ONE, _ONE]), _TIMESTAMP_FIELD, _TIMESTAMP_FIELD, None),
    "timestamp, then a list as a map key in the next column": (  # the columns are read before the fields' readers run
        frame([DECIMAL, _TIMESTAMP], [_ONE, _LIST_KEY]), _UNHASHABLE_LIST, _UNHASHABLE_LIST, TypeError),
    # Instances the compiled codec leaves to the pure codec's reader alone (bytes left over, a value cut short).
    "list as a map key in an instance with bytes left over": (
        frame([DECIMAL, _ext(1, b"\x93\x00\x81\x90\x01\x02\x01\x01")], [_ONE, _ONE]),
        _UNHASHABLE_LIST, _UNHASHABLE_LIST, TypeError),
    "instance cut short": (frame([DECIMAL, _ext(1, b"\x93\x00\x81\x92\x01\xa5\x01\x01")], [_ONE, _ONE]),
                           _LIST + "OutOfData: No more data to unpack." + _WHERE,
                           _LIST + "OutOfData: No more data to unpack." + _WHERE, None),
    "timestamp of 5 bytes": (frame([DECIMAL, b"\xc7\x05\xff12345"], [_ONE, _ONE]),
                             _LIST + "ValueError: invalid timestamp data (length 5)" + _WHERE,
                             _LIST + "ValueError: invalid timestamp data (length 5)" + _WHERE, ValueError),
    "timestamp of too many nanoseconds": (
        frame([DECIMAL, b"\xd7\xff" + b"\xff" * 8], [_ONE, _ONE]),
        _LIST + "ValueError: nanoseconds must be a non-negative integer not greater than 999999999." + _WHERE,
        _LIST + "ValueError: nanoseconds must be a non-negative integer not greater than 999999999." + _WHERE, ValueError),
}


def instance_frame(payload: bytes) -> bytes:
    """A list of a decimal and one AnyTwo instance (ext 1) of this payload, under the same struct table."""
    in_band = class_id_hash("serreg.structs") + _DEFINITION + class_id_hash("list") + b"\x92" + DECIMAL + _ext(1, payload)
    return serreg.SerializationResult(in_band).to_bytes()


_IN_BAND_LIST_KEY = "invalid msgpack in-band data: TypeError: unhashable type: 'list'" + _WHERE

# The same faults in an instance (ext 1) after a nested value, outside any ext 2: the instance's reader
# lets msgpack's error through to the document's reader, and refuses a timestamp in its own words once
# the payload is read. (name: (frame, words, type of the cause or None), trusted and untrusted alike.)
INSTANCE_FAULTS: dict[str, tuple[bytes, str, Optional[type]]] = {
    "list as a map key": (instance_frame(b"\x93\x00" + _LIST_KEY + b"\x01"), _IN_BAND_LIST_KEY, TypeError),
    "timestamp": (instance_frame(b"\x93\x00" + _TIMESTAMP + b"\x01"), _TIMESTAMP_FIELD, None),
    "timestamp in a list": (instance_frame(b"\x93\x00\x92\x01" + _TIMESTAMP + b"\x01"), _TIMESTAMP_FIELD, None),
    "timestamp, then a list as a map key": (instance_frame(b"\x93\x00" + _TIMESTAMP + _LIST_KEY), _IN_BAND_LIST_KEY, TypeError),
    "too many items: a timestamp, then a list as a map key": (
        instance_frame(b"\x94\x00\x02" + _TIMESTAMP + _LIST_KEY), _IN_BAND_LIST_KEY, TypeError),
    "timestamp of 5 bytes": (instance_frame(b"\x93\x00\xc7\x05\xff12345\x01"),
                             # The first wrong byte is the ext header of type -1 (95), as Java names it.
                             "invalid msgpack in-band data: ValueError: invalid timestamp data (length 5)"
                             " (class ID 'list', byte offset 95, inside serreg.structs)", ValueError),
}
