"""Plain values on the compiled codec's fast paths, against the pure codec.

Inside lists, tuples and dicts the C core writes exact str, int, float, None and
bool values in a tight loop, and reads map keys through a cache of short keys
(serreg/codec/_core_types.h, _core_keys.h). These tests hold those paths to the
pure codec's bytes, values and errors: user serializers registered for the plain
types still take them over, keys that collide in the cache, are not ASCII or are
long come back equal, and malformed keys are refused alike.
"""

from __future__ import annotations

from unittest import mock

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import frame_pieces

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")

COMPILED_REGISTRY = serreg.Registry()
with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
    PURE_REGISTRY = serreg.Registry()

plain = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=False),
    st.text(max_size=40), st.binary(max_size=8),
)
keys = st.one_of(st.text(max_size=40), st.integers(), st.sampled_from(["id", "name", "score", "tags", "é", "k" * 33]))
documents = st.recursive(
    plain,
    lambda children: st.one_of(
        st.lists(children, max_size=6), st.lists(children, max_size=4).map(tuple),
        st.dictionaries(keys, children, max_size=6),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_plain_documents_are_written_and_read_as_the_pure_codec_does(value):
    frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert frame == PURE_REGISTRY.serialize(value).to_bytes()
    assert COMPILED_REGISTRY.deserialize(frame) == value == PURE_REGISTRY.deserialize(frame)


def test_keys_that_share_cache_slots_come_back_equal():
    # 5,000 distinct short keys over 512 slots, read twice: every slot is overwritten and hit.
    value = [{f"k{i}": i, f"é{i}": -i, "x" * (i % 40): None} for i in range(5000)]
    frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    for _ in range(2):
        back = COMPILED_REGISTRY.deserialize(frame)
        assert back == value
        assert [list(d) for d in back] == [list(d) for d in value]


def test_keys_alike_in_their_first_bytes_are_told_apart_wherever_they_stand():
    # The cache compares a key's first 16 bytes as two words and its length: keys that differ only
    # by trailing NULs, or only past byte 16, or that stand near the end of the bytes (read byte by
    # byte there, as whole words elsewhere) must each come back as themselves.
    alike = ["a", "a\x00", "a\x00\x00", "\x00", "b" * 8, "b" * 8 + "\x00", "c" * 16, "c" * 16 + "\x00",
             "d" * 16 + "1", "d" * 16 + "2", "d" * 31 + "3", "d" * 31 + "4", "e" * 32]
    for order in (alike, alike[::-1]):
        for key in order:
            last = {key: 1}  # the key within 16 bytes of the frame's end
            first = [{key: 1}, "z" * 40]  # the key with more than 16 bytes after it
            for value in (last, first, last):
                back = COMPILED_REGISTRY.deserialize(COMPILED_REGISTRY.serialize(value).to_bytes())
                assert back == value
                assert type(back) is type(value)
                keys_back = list(back) if type(back) is dict else list(back[0])
                assert keys_back == [key] and len(keys_back[0]) == len(key)


def test_one_character_keys_and_values_come_back_as_themselves():
    # Strs of one ASCII byte are read from a table of CPython's own one-character strs, as keys and
    # as values, trusted or not; one character of more bytes goes the usual way.
    chars = [chr(i) for i in range(128)] + ["é", "€", "\U0001f600"]
    value = [{c: c for c in chars}, chars, {c: [c, {c: c}] for c in chars[::7]}]
    frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert frame == PURE_REGISTRY.serialize(value).to_bytes()
    for trusted in (True, False, True):
        back = COMPILED_REGISTRY.deserialize(frame, trusted=trusted)
        assert back == value
        assert [list(d) for d in (back[0], back[2])] == [list(d) for d in (value[0], value[2])]


def test_short_values_with_a_non_ascii_byte_anywhere_come_back_as_themselves():
    # Values of up to 8 bytes are checked for ASCII as one word: a non-ASCII byte at any place in
    # them is seen (and the bytes after them are not), near the end of the bytes or not.
    values = []
    for size in range(2, 9):
        for at in range(size):
            raw = bytearray(b"a" * size)
            raw[at] = 0xE9  # latin-1, not UTF-8 alone: written as its two-byte UTF-8 form below
            values.append(raw.decode("latin-1"))
    values += ["abcdefgh", "abc", "x" * 7]
    for value in (values, values[::-1], [values[-1]], ["é"]):
        frame = COMPILED_REGISTRY.serialize(value).to_bytes()
        assert frame == PURE_REGISTRY.serialize(value).to_bytes()
        back = COMPILED_REGISTRY.deserialize(frame)
        assert back == value
        assert [v.isascii() for v in back] == [v.isascii() for v in value]


class Tagged:
    """A user serializer for a plain type: repr in, eval-free decode by type."""

    def __init__(self, kind):
        self.kind = kind

    def serialize(self, obj):
        return serreg.SerializationResult(msgpack.packb(["tagged", obj]))

    def deserialize(self, in_band, oob):
        return msgpack.unpackb(in_band)[1]


@pytest.mark.parametrize("kind", [str, int, float, bool, type(None)])
def test_a_user_serializer_for_a_plain_type_takes_it_over_inside_containers(kind):
    value = [1, "a", 2.5, True, None, {"k": 1, 2: "v", "f": 0.5, "n": None, "b": False}, (1, "x", None, 3.5)]
    frames = []
    for make in (serreg.Registry, None):
        if make is None:
            with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
                registry = serreg.Registry()
        else:
            registry = make()
        registry.register_serializer(f"my.{kind.__name__}", kind, Tagged(kind))
        frames.append(registry.serialize(value).to_bytes())
        assert registry.deserialize(frames[-1]) == value
    assert frames[0] == frames[1]
    assert class_id_hash(f"my.{kind.__name__}") in frames[0]


def frame_of(class_id: str, in_band: bytes) -> bytes:
    pieces, _ = frame_pieces([class_id_hash(class_id), in_band], [])
    return b"".join(pieces)


HOSTILE = {
    "key of invalid utf-8": frame_of("dict", b"\x81\xa2\xff\xfe\x01"),
    "key of a lone surrogate": frame_of("dict", b"\x81\xa3\xed\xa0\x80\x01"),
    "long key of invalid utf-8": frame_of("dict", b"\x81\xd9\x28" + b"a" * 39 + b"\xff\x01"),
    "key cut short": frame_of("dict", b"\x81\xa5abc"),
    "value cut short after a cached key": frame_of("list", b"\x92\x81\xa2id\x01\x81\xa2id\xa5ab"),
    "one-byte key of invalid utf-8": frame_of("dict", b"\x81\xa1\xff\x01"),
    "one-byte value of invalid utf-8": frame_of("list", b"\x92\xa1a\xa1\x80"),
    "one-byte key cut short": frame_of("dict", b"\x82\xa1a\x01\xa1"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("trusted", [True, False])
def test_malformed_keys_are_refused_alike(name, trusted):
    def outcome(registry):
        try:
            return ("value", registry.deserialize(HOSTILE[name], trusted=trusted))
        except serreg.SerregError as error:
            return ("error", type(error).__name__, str(error))

    compiled = outcome(COMPILED_REGISTRY)
    assert compiled == outcome(PURE_REGISTRY)
    assert compiled[0] == "error"
