"""Mutated frames read by the top-level entry answer as the full path answers them.

``registry.deserialize(frame)`` with the frame alone runs the compiled entry's short ways first: small
dicts and lists read by one recursive reader (``_core_lean.h``, maps of one shape as copies of a kept
dict of their keys) and the frame of one large bytes value read in one check of its shape
(``top_bytes_frame``, ``_core_top_value.h``). Any option (``trusted=True``) goes through the Python
method and the full decoder, which words every refusal. Hypothesis mutates frames of both kinds (and
their neighbours) and each one must come back the same value or the same error both ways, and as the
pure-Python codec answers it. ``SERREG_ENTRY_EXAMPLES`` sets the number of examples (a longer run by hand).
"""

from __future__ import annotations

import os
from unittest import mock

from hypothesis import HealthCheck, given, settings

import serreg
import serreg.registry
from serreg.codec.layout import BYTES_OUT_OF_BAND_THRESHOLD
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

from strategies import mutations

REGISTRY = serreg.Registry()
with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
    PURE_REGISTRY = serreg.Registry()

VALUES = [
    {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": True},
    {"ka": {"kb": [None, -1, 2**40]}, "kc": "x" * 40},
    [1, "two", [3.5, {"k": False}]],
    bytes(range(256)) * (BYTES_OUT_OF_BAND_THRESHOLD // 256 + 1),  # one buffer: the large-bytes frame
    bytearray(b"xy" * BYTES_OUT_OF_BAND_THRESHOLD),  # one buffer, not bytes
]
FRAMES = [REGISTRY.serialize(value).to_bytes() for value in VALUES]


def outcome(read):
    try:
        value = read()
    except Exception as error:  # noqa: BLE001  (the error is what is compared)
        return ("error", type(error).__name__, str(error))
    return ("value", type(value).__name__, value)


@settings(max_examples=int(os.environ.get("SERREG_ENTRY_EXAMPLES", "300")), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(mutations(FRAMES))
def test_the_entry_answers_mutated_frames_as_the_full_path(frame):
    for _ in range(2):  # the second read finds the limits parsed and the map shapes kept
        entry = outcome(lambda: REGISTRY.deserialize(frame))
        assert entry == outcome(lambda: REGISTRY.deserialize(frame, trusted=True))
        assert entry == outcome(lambda: PURE_REGISTRY.deserialize(frame))


def test_the_frames_themselves_come_back():
    for value, frame in zip(VALUES, FRAMES):
        for _ in range(3):
            assert REGISTRY.deserialize(frame) == value == PURE_REGISTRY.deserialize(frame)
