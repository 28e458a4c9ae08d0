"""Hostile serreg.pyobjects frames (docs/FORMAT.md 10.9): refused with a DeserializationError saying where.

Hand-made frames around a good one: a classes bin that is cut, not a pickle,
not a tuple of plain classes; class and definition counts that differ; typed
fields; instance arrays of another length or naming another definition.
"""

from __future__ import annotations

import collections
import pickle
from typing import Any

import pytest

import serreg
from serreg.result import with_class_hash
from serreg.wire.class_id import class_id_hash

from implicit_shapes import PYOBJECTS, REGISTRIES, STRUCTS, Plain, Record

_RECORD_DEFINITION = [["serreg.pyobject:t:Record", [["id", "any"], ["name", "any"], ["tags", "any"]]]]


def _hostile(classes: bytes, table: Any, inner: bytes, bin_header: bytes | None = None) -> bytes:
    import msgpack

    header = bin_header if bin_header is not None else b"\xc5" + len(classes).to_bytes(2, "big")
    in_band = header + classes + STRUCTS + msgpack.packb(table) + inner
    return with_class_hash(PYOBJECTS, in_band, []).to_bytes()


_GOOD_CLASSES = pickle.dumps((Record,), protocol=5)
_RECORD_HASH = class_id_hash("serreg.pyobject:t:Record")
HOSTILE = {
    "no bin": (with_class_hash(PYOBJECTS, b"\x90", []).to_bytes(), "msgpack bin"),
    "bin too long": (_hostile(_GOOD_CLASSES, _RECORD_DEFINITION, _RECORD_HASH + b"\x94\x00\x01\xa1a\xc0",
                              b"\xc6\xff\xff\xff\x00"), "do not fit"),
    "not a pickle": (_hostile(b"\x80\x05garbage", _RECORD_DEFINITION, _RECORD_HASH + b"\x94\x00\x01\xa1a\xc0"),
                     "cannot be unpickled"),
    "not a tuple": (_hostile(pickle.dumps(Record, protocol=5), _RECORD_DEFINITION, _RECORD_HASH + b"\x94\x00\x01\xa1a\xc0"),
                    "tuple of classes"),
    "not a plain class": (_hostile(pickle.dumps((collections.OrderedDict,), protocol=5), _RECORD_DEFINITION,
                                   _RECORD_HASH + b"\x94\x00\x01\xa1a\xc0"), "plain objects"),
    "classes outnumber definitions": (_hostile(pickle.dumps((Record, Plain), protocol=5), _RECORD_DEFINITION,
                                               _RECORD_HASH + b"\x94\x00\x01\xa1a\xc0"), "implicit definition"),
    "definitions outnumber classes": (_hostile(_GOOD_CLASSES, _RECORD_DEFINITION * 2,
                                               _RECORD_HASH + b"\x94\x00\x01\xa1a\xc0"), "implicit definition 2"),
    "typed field": (_hostile(_GOOD_CLASSES, [["serreg.pyobject:t:Record", [["id", "int64"]]]],
                             _RECORD_HASH + b"\x92\x00\x01"), "implicit fields are 'any'"),
    "index out of range": (_hostile(_GOOD_CLASSES, _RECORD_DEFINITION, class_id_hash("list") + b"\x91\xd5\x01\x91\x05"),
                           "definition 5"),
    "field count": (_hostile(_GOOD_CLASSES, _RECORD_DEFINITION, _RECORD_HASH + b"\x93\x00\x01\xa1a"),
                    "field value"),
    "top-level hash of another definition": (
        _hostile(pickle.dumps((Record, Plain), protocol=5),
                 [*_RECORD_DEFINITION, ["serreg.pyobject:t:Plain", [["a", "any"], ["b", "any"]]]],
                 _RECORD_HASH + b"\x93\x01\x01\x02"), "ClassIDHash is not the class ID"),
    "no struct section": (with_class_hash(PYOBJECTS, b"\xc4" + bytes([len(_GOOD_CLASSES)]) + _GOOD_CLASSES
                                          + class_id_hash("list") + b"\x90", []).to_bytes(), "serreg.structs section"),
}


def test_a_well_formed_hand_made_frame_reads():
    frame = _hostile(_GOOD_CLASSES, _RECORD_DEFINITION, _RECORD_HASH + b"\x94\x00\x01\xa1a\xc0")
    for registry in REGISTRIES:
        assert registry.deserialize(frame) == Record(1, "a", None)


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_frames_are_refused_saying_where(name):
    frame, words = HOSTILE[name]
    for registry in REGISTRIES:
        with pytest.raises(serreg.DeserializationError) as raised:
            registry.deserialize(frame)
        assert words in str(raised.value), str(raised.value)
