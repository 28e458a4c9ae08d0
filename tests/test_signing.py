"""HMAC-SHA256 signed frames: checked before anything is decoded; unsigned frames unchanged."""

import hashlib
import hmac
import io
import json
import struct
from pathlib import Path

import numpy as np
import pytest

import serreg
from serreg import SignatureError
from serreg.wire.frame import iter_frames

KEY = b"k" * 32
VECTORS = Path(__file__).parent / "vectors" / "signed"


class CountingSerializer(serreg.Serializer):
    """Records every decode, to prove a rejected frame was never decoded."""

    calls = 0

    def serialize(self, value):
        return serreg.SerializationResult(b"")

    def deserialize(self, in_band, oob):
        CountingSerializer.calls += 1
        return Marker()


class Marker:
    pass


VALUE = {"a": [1, 2.5], "arr": np.arange(10, dtype=np.int16), "blob": bytearray(b"xyz")}


def test_signed_round_trip_and_layout():
    result = serreg.serialize(VALUE, key=KEY)
    assert result.signed
    frame = result.to_bytes()
    assert frame[5] == 0x01 and len(frame) == result.nbytes
    assert struct.unpack_from("<Q", frame, 24)[0] == len(frame)
    assert hmac.compare_digest(hmac.new(KEY, frame[:-32], hashlib.sha256).digest(), frame[-32:])
    back = serreg.deserialize(frame, key=KEY)
    assert back["a"] == VALUE["a"] and np.array_equal(back["arr"], VALUE["arr"])
    # Without a key a signed frame still decodes (its signature is not checked).
    assert serreg.deserialize(frame)["blob"] == VALUE["blob"]
    sink = io.BytesIO()
    assert result.write_to(sink) == len(frame) and sink.getvalue() == frame


def test_unsigned_frames_are_byte_identical_to_before():
    unsigned = serreg.serialize(VALUE).to_bytes()
    signed = serreg.serialize(VALUE, key=KEY).to_bytes()
    assert unsigned[5] == 0
    assert signed[:5] == unsigned[:5] and signed[6:24] == unsigned[6:24] and signed[32:-32] == unsigned[32:]
    assert struct.unpack_from("<Q", unsigned, 24)[0] == len(unsigned) == len(signed) - 32


def test_every_altered_byte_is_rejected_before_decoding():
    registry = serreg.Registry()
    registry.register_serializer("test.Marker", Marker, CountingSerializer())
    frame = registry.serialize([Marker(), np.arange(3)], key=KEY).to_bytes()
    CountingSerializer.calls = 0
    for position in range(len(frame)):
        altered = bytearray(frame)
        altered[position] ^= 0x20
        with pytest.raises(serreg.DeserializationError):
            registry.deserialize(bytes(altered), key=KEY)
    assert CountingSerializer.calls == 0
    registry.deserialize(frame, key=KEY)
    assert CountingSerializer.calls == 1


def test_unsigned_wrong_key_truncated_and_extended_frames_are_rejected():
    frame = serreg.serialize(VALUE, key=KEY).to_bytes()
    with pytest.raises(SignatureError, match="another key or altered"):
        serreg.deserialize(frame, key=b"q" * 32)
    with pytest.raises(SignatureError, match="not signed"):
        serreg.deserialize(serreg.serialize(VALUE).to_bytes(), key=KEY)
    for bad in (frame[:-1], frame + b"\x00", frame[:-32]):
        with pytest.raises(serreg.DeserializationError):
            serreg.deserialize(bad, key=KEY)
    # Clearing the flag and dropping the trailer makes an unsigned frame: refused when a key is required.
    stripped = bytearray(frame[:-32])
    stripped[5] = 0
    struct.pack_into("<Q", stripped, 24, len(stripped))
    with pytest.raises(SignatureError):
        serreg.deserialize(bytes(stripped), key=KEY)


def test_in_process_results_check_the_key_they_were_signed_with():
    result = serreg.serialize([1, 2], key=KEY)
    assert serreg.deserialize(result, key=KEY) == [1, 2]
    with pytest.raises(SignatureError):
        serreg.deserialize(result, key=b"q" * 32)
    with pytest.raises(SignatureError):
        serreg.deserialize(serreg.serialize([1, 2]), key=KEY)


def test_keys_must_be_bytes_of_at_least_16():
    with pytest.raises(ValueError, match="at least 16"):
        serreg.serialize(1, key=b"short")
    with pytest.raises(TypeError):
        serreg.serialize(1, key="a text key that is long enough")
    with pytest.raises(ValueError):
        serreg.deserialize(serreg.serialize(1).to_bytes(), key=b"")


def test_signed_frames_in_a_stream():
    frames = [serreg.serialize(v, key=KEY).to_bytes() for v in ([1], np.arange(70), "x")]
    views = list(iter_frames(io.BytesIO(b"".join(frames)), key=KEY))
    assert [v.signed for v in views] == [True, True, True]
    with pytest.raises(SignatureError):
        list(iter_frames(io.BytesIO(frames[0]), key=b"q" * 32))


def test_untrusted_and_signed_together():
    frame = serreg.serialize({"x": object}, key=KEY).to_bytes()  # a class travels through pickle
    assert serreg.deserialize(frame, key=KEY, trusted=True)["x"] is object
    with pytest.raises(serreg.UntrustedClassIDError):
        serreg.deserialize(frame, key=KEY, trusted=False)


def test_golden_signed_vectors():
    manifest = json.loads((VECTORS / "manifest.json").read_text())
    key = bytes.fromhex(manifest["key_hex"])
    values = {"signed_list": [1, "x", None], "signed_ndarray": np.arange(4, dtype="<i4")}
    assert len(manifest["vectors"]) == 5
    for entry in manifest["vectors"]:
        frame = (VECTORS / entry["file"]).read_bytes()
        if entry["expect"] == "value":
            value = values[entry["name"]]
            back = serreg.deserialize(frame, key=key)
            assert np.array_equal(back, value) if isinstance(value, np.ndarray) else back == value
            assert serreg.serialize(value, key=key).to_bytes() == frame, entry["name"]
            assert hmac.new(key, frame[:-32], hashlib.sha256).digest() == frame[-32:]
        else:
            with pytest.raises(SignatureError):
                serreg.deserialize(frame, key=key)
            serreg.deserialize(frame)  # well-formed apart from the signature


def test_inspect_shows_a_signed_frame():
    from serreg.inspection import inspect_frames

    frames = serreg.serialize([1], key=KEY).to_bytes() + serreg.serialize([2]).to_bytes()
    reports = list(inspect_frames(frames, {}))
    assert [r.signed for r in reports] == [True, False]
