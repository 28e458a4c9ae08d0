"""strs whose bytes are not UTF-8: refused with msgpack's UnicodeDecodeError, worded alike by both codecs.

The pure codec reads a document with msgpack's reader, whose UnicodeDecodeError names the byte
and its position in the str; the compiled codec refuses the same str with the same words, also
after it decoded nested values (where it does not hand the document to the pure codec again).
Each in-band is written out byte by byte: a list item, a map key and a map value, a tuple's item
read in place, each with a nested value (a decimal, which its serializer decodes) before the str
and with a plain int there instead; and lists of struct instances (ext 2) holding the str in a
column, after a decimal or an int. Runs over the default codec (compiled, or pure with
SERREG_PURE_PYTHON=1) and over a registry on the pure codec.
"""

from __future__ import annotations

import decimal
from typing import Any
from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg import DeserializationError
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import CLASS_ID_HASH_SIZE, class_id_hash

from struct_shapes import Group, Node, Pair, register

with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
    PURE_REGISTRY = serreg.Registry()
    PURE_REGISTRY_FOR_STRUCTS = serreg.Registry()
DEFAULT_REGISTRY = serreg.Registry()
REGISTRIES = {"default": DEFAULT_REGISTRY, "pure": PURE_REGISTRY}

# Decimal("0") as a nested value: ext 8 of 10 bytes, type 0, ClassIDHash('decimal'), then its in-band "0".
DECIMAL = bytes.fromhex("c70a00" "3e6d4b43d473c69d" "a130")
PLAIN = b"\x00"  # the int 0 where the decimal was: nothing nested before the str
TUPLE_HASH = bytes.fromhex("fb2c3dcbe52aa287")
assert class_id_hash("decimal") == DECIMAL[3:11] and class_id_hash("tuple") == TUPLE_HASH

# fixstr header + bytes that are not UTF-8, and what Python's UTF-8 decoder says of them.
BAD_STRS = {
    "invalid start byte": (b"\xa2\xff\xfe", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    "lone surrogate": (b"\xa3\xed\xa0\x80", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"),
    "cut-short sequence at the end": (b"\xa3a\xe2\x82", "'utf-8' codec can't decode bytes in position 1-2: unexpected end of data"),
    "str8, invalid start byte": (b"\xd9\x02\xff\xfe", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
}


def in_band(place: str, before: bytes, bad: bytes) -> tuple[str, bytes, str]:
    """(class ID, in-band, where the error says it is) of a document holding ``before`` and then ``bad``.

    The offset named is the bad str's header (32 bytes of frame header and 8 of ClassIDHash before
    the in-band): the first byte that is wrong, as the Java reader names it."""
    if place == "list item":  # [before, bad]
        data, class_id, inside = b"\x92" + before + bad, "list", ""
    elif place == "map key":  # {"k": before, bad: 1}
        data, class_id, inside = b"\x82\xa1k" + before + bad + b"\x01", "dict", ""
    elif place == "map value":  # {"k": before, "v": bad}
        data, class_id, inside = b"\x82\xa1k" + before + b"\xa1v" + bad, "dict", ""
    else:
        assert place == "tuple item"  # [before, (bad,)]: the tuple's in-band is read in place by the compiled codec
        tuple_in_band = TUPLE_HASH + b"\x91" + bad
        assert len(tuple_in_band) < 256
        data = b"\x92" + before + b"\xc7" + bytes([len(tuple_in_band)]) + b"\x00" + tuple_in_band
        class_id, inside = "tuple", ", inside list"
    at = 40 + len(data) - len(bad) - (1 if place == "map key" else 0)
    return ("list" if place == "tuple item" else class_id), data, f"class ID '{class_id}', byte offset {at}{inside}"


def frame(class_id: str, data: bytes) -> bytes:
    return serreg.SerializationResult(class_id_hash(class_id) + data).to_bytes()


@pytest.mark.parametrize("registry", sorted(REGISTRIES))
@pytest.mark.parametrize("trusted", [True, False])
@pytest.mark.parametrize("nested", [True, False], ids=["after a nested value", "no nested value"])
@pytest.mark.parametrize("place", ["list item", "map key", "map value", "tuple item"])
@pytest.mark.parametrize("bad", sorted(BAD_STRS))
def test_a_str_that_is_not_utf8_is_refused_with_the_decoders_words(registry, trusted, nested, place, bad):
    bad_bytes, words = BAD_STRS[bad]
    class_id, data, where = in_band(place, DECIMAL if nested else PLAIN, bad_bytes)
    for blob in (frame(class_id, data), bytearray(frame(class_id, data))):
        with pytest.raises(DeserializationError) as caught:
            REGISTRIES[registry].deserialize(blob, trusted=trusted)
        assert str(caught.value) == f"invalid msgpack in-band data: UnicodeDecodeError: {words} ({where})"
        assert type(caught.value.__cause__) is UnicodeDecodeError


def test_the_example_list_after_a_decimal_is_refused_alike():
    # [Decimal("0"), "\xff\xfe"]: the compiled codec said "malformed at byte 14, after nested values".
    blob = frame("list", bytes.fromhex("92" "c70a00" "3e6d4b43d473c69d" "a130" "a2fffe"))
    messages = set()
    for registry in REGISTRIES.values():
        for trusted in (True, False):
            with pytest.raises(DeserializationError) as caught:
                registry.deserialize(blob, trusted=trusted)
            messages.add(str(caught.value))
    assert messages == {"invalid msgpack in-band data: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in "
                        "position 0: invalid start byte (class ID 'list', byte offset 54)"}


def test_the_same_documents_with_utf8_strs_are_read():
    # The frames above with a UTF-8 str in place of the bad one: read, so the errors above are the str's.
    good = b"\xa2\xc3\xa9"  # "é"
    zero = decimal.Decimal("0")
    expected = {"list item": [zero, "é"], "map key": {"k": zero, "é": 1}, "map value": {"k": zero, "v": "é"},
                "tuple item": [zero, ("é",)]}
    for place, value in expected.items():
        class_id, data, _ = in_band(place, DECIMAL, good)
        for registry in REGISTRIES.values():
            for trusted in (True, False):
                back = registry.deserialize(frame(class_id, data), trusted=trusted)
                assert back == value
                assert type(back["k"] if isinstance(back, dict) else back[0]) is decimal.Decimal


# Lists of struct instances (ext 2, docs/FORMAT.md 10.3) holding the bad str in their columns: the
# pure codec's ext 2 reader words msgpack's UnicodeDecodeError, naming where its count starts in the
# ext 2's payload (byte 2: a fixarray header and index 0 before it); the compiled codec reads such a
# list in C (its columns in frames) and must say the same, also after a nested value.
STRUCT_REGISTRIES = {"default": register(serreg.Registry()), "pure": register(PURE_REGISTRY_FOR_STRUCTS)}


def _nodes(label: str) -> Any:  # a str column (Optional[str]) beside a column of lists of structs
    return [Node(value=1, label=label), Node(value=2, label="b")]


def _child(label: str) -> Any:  # the str in an ext 2 inside another's column (a list[Node] field)
    return [Node(value=1, children=[Node(value=3, label=label), Node(value=4)], label="a")]


def _leader(left: str) -> Any:  # in a struct instance (ext 1) in a column
    return [Group("g", frozenset(), {}, Pair(left, 1)), Group("h", frozenset(), {})]


def _member(left: str) -> Any:  # in a struct instance in a frozenset in a column
    return [Group("g", frozenset({Pair(left, 2)}), {}), Group("h", frozenset(), {})]


STRUCT_LISTS = {"str column": (_nodes, "shapes.Node"), "ext 2 in a column": (_child, "shapes.Node"),
                "ext 1 in a column": (_leader, "shapes.Group"), "ext 1 in a set in a column": (_member, "shapes.Group")}


@pytest.mark.parametrize("trusted", [True, False])
@pytest.mark.parametrize("nested", [True, False], ids=["after a nested value", "no nested value"])
@pytest.mark.parametrize("place", sorted(STRUCT_LISTS))
@pytest.mark.parametrize("bad", sorted(BAD_STRS))
def test_a_str_that_is_not_utf8_in_a_list_of_structs_is_refused_alike(trusted, nested, place, bad):
    bad_bytes, words = BAD_STRS[bad]
    make, class_id = STRUCT_LISTS[place]
    stand_in = "qxyz"[: len(bad_bytes) - 1]  # a fixstr as long as the bad one: the ext 2's length holds
    value = {"a": decimal.Decimal("1.5") if nested else 0, "b": make(stand_in)}
    good = STRUCT_REGISTRIES["pure"].serialize(value).to_bytes()
    assert good.count(bytes([0xA0 + len(stand_in)]) + stand_in.encode()) == 1
    blob = good.replace(bytes([0xA0 + len(stand_in)]) + stand_in.encode(), bad_bytes)
    # The dict's reader refuses it: named at its in-band's first byte, after the struct table (docs/FORMAT.md 4.1).
    at = good.index(class_id_hash("dict")) + CLASS_ID_HASH_SIZE
    expected = (f"struct {class_id!r}: a list of its instances (msgpack ext 2) is not valid msgpack after byte 2 of "
                f"its payload: UnicodeDecodeError: {words} (class ID 'dict', byte offset {at}, inside serreg.structs)")
    for name, registry in STRUCT_REGISTRIES.items():
        assert registry.deserialize(good, trusted=trusted) == value
        with pytest.raises(DeserializationError) as caught:
            registry.deserialize(blob, trusted=trusted)
        assert (name, str(caught.value)) == (name, expected)
        assert type(caught.value.__cause__) is UnicodeDecodeError
