"""HMAC-SHA256 signed frames (v2): checked before anything is decoded, on the bytes that are decoded; unsigned frames unchanged."""

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
from serreg.wire import frame as frame_module
from serreg.wire.frame import iter_frames
from serreg.wire.signing import mac_key

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
    assert frame[5] == 0x02 and len(frame) == result.nbytes
    assert struct.unpack_from("<Q", frame, 24)[0] == len(frame)
    derived = hashlib.sha256(b"serreg-frame-key-v2" + len(KEY).to_bytes(8, "big") + KEY).digest()
    assert mac_key(KEY) == derived
    assert hmac.compare_digest(hmac.new(derived, frame[:-32], hashlib.sha256).digest(), frame[-32:])
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
    assert len(manifest["vectors"]) == 7
    for entry in manifest["vectors"]:
        frame = (VECTORS / entry["file"]).read_bytes()
        if entry["expect"] == "value":
            value = values[entry["name"]]
            back = serreg.deserialize(frame, key=key)
            assert np.array_equal(back, value) if isinstance(value, np.ndarray) else back == value
            assert serreg.serialize(value, key=key).to_bytes() == frame, entry["name"]
            assert hmac.new(mac_key(key), frame[:-32], hashlib.sha256).digest() == frame[-32:]
        elif entry["expect"] == "retired v1":
            for with_key in (key, None):
                with pytest.raises(SignatureError, match="retired signature scheme"):
                    serreg.deserialize(frame, key=with_key)
        else:
            assert entry["expect"] == "signature error"
            with pytest.raises(SignatureError):
                serreg.deserialize(frame, key=key)
            serreg.deserialize(frame)  # well-formed apart from the signature


def test_keys_are_not_interchangeable():
    # With the key used as given (RFC 2104) a key signed like itself plus zero bytes, and a key
    # longer than 64 bytes like its SHA-256: c2967a7 accepted both.
    frame = serreg.serialize([1, 2], key=KEY).to_bytes()
    for other in (KEY + b"\x00", KEY + b"\x00" * 32):
        with pytest.raises(SignatureError):
            serreg.deserialize(frame, key=other)
    long_key = bytes(range(80))
    frame = serreg.serialize([1, 2], key=long_key).to_bytes()
    with pytest.raises(SignatureError):
        serreg.deserialize(frame, key=hashlib.sha256(long_key).digest())
    assert serreg.deserialize(frame, key=long_key) == [1, 2]


def test_frames_of_the_retired_v1_scheme_are_refused_with_or_without_a_key():
    unsigned = bytearray(serreg.serialize([1, 2]).to_bytes())
    unsigned[5] = 0x01
    struct.pack_into("<Q", unsigned, 24, len(unsigned) + 32)
    v1 = bytes(unsigned) + hmac.new(KEY, bytes(unsigned), hashlib.sha256).digest()
    for key in (KEY, None):
        with pytest.raises(SignatureError, match="flag 0x01") as error:
            serreg.deserialize(v1, key=key)
        assert error.value.offset == 5


class _SwapAfterVerifying:
    """Stands in for the frame's verify: checks the signature, then lets "another process"
    rewrite the shared buffer, as a writer racing the reader can."""

    def __init__(self, shared: bytearray, replacement: bytes) -> None:
        self.shared = shared
        self.replacement = replacement
        self.verify = frame_module.verify

    def __call__(self, key, view, end):
        self.verify(key, view, end)
        self.shared[:] = self.replacement


@pytest.mark.parametrize("holder", [bytearray, memoryview])
def test_the_bytes_decoded_are_the_bytes_verified(monkeypatch, holder):
    # c2967a7 verified the caller's buffer and then decoded it again: a writer that swapped the
    # in-band in between got its own value decoded (with pickle, its own code run).
    signed = serreg.serialize(["a" * 64], key=KEY).to_bytes()
    swapped = bytearray(signed)
    swapped[signed.index(b"a" * 64): signed.index(b"a" * 64) + 64] = b"b" * 64
    shared = bytearray(signed)
    monkeypatch.setattr(frame_module, "verify", _SwapAfterVerifying(shared, bytes(swapped)))
    value = serreg.deserialize(holder(shared) if holder is memoryview else shared, key=KEY)
    assert value == ["a" * 64] and shared == swapped
    # A writable frame stays writable for what is decoded from it (a private writable copy).
    array = serreg.deserialize(bytearray(serreg.serialize(np.arange(4), key=KEY).to_bytes()), key=KEY)
    array[0] = 7
    # An immutable bytes frame is not copied: nothing can change it.
    monkeypatch.setattr(frame_module, "verify", frame_module.verify.verify)
    frame = serreg.serialize(np.arange(100), key=KEY).to_bytes()
    back = serreg.deserialize(frame, key=KEY)
    assert back.base is not None and not back.flags.writeable


def _flip_forever(name: str, start: int, first: bytes, second: bytes, started, stop) -> None:
    from multiprocessing import shared_memory

    memory = shared_memory.SharedMemory(name=name)
    try:
        started.set()
        while not stop.is_set():
            memory.buf[start:start + len(first)] = first
            memory.buf[start:start + len(second)] = second
    finally:
        memory.close()


def test_a_frame_in_shared_memory_rewritten_by_another_process_decodes_only_as_signed():
    # c2967a7 decoded the writer's swapped value within a fraction of a second.
    import multiprocessing
    import time
    from multiprocessing import shared_memory

    signed = serreg.serialize(["a" * 64], key=KEY).to_bytes()
    start = signed.index(b"a" * 64)
    memory = shared_memory.SharedMemory(create=True, size=len(signed))
    context = multiprocessing.get_context("spawn")
    started, stop = context.Event(), context.Event()
    outcomes = {"signed value": 0, "signature error": 0}
    try:
        memory.buf[: len(signed)] = signed
        writer = context.Process(target=_flip_forever,
                                 args=(memory.name, start, b"a" * 64, b"b" * 64, started, stop))
        writer.start()
        try:
            assert started.wait(60)
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                try:
                    value = serreg.deserialize(memory.buf[: len(signed)], key=KEY)
                except SignatureError:
                    outcomes["signature error"] += 1
                else:
                    assert value == ["a" * 64], f"decoded bytes that were not the ones verified: {value}"
                    outcomes["signed value"] += 1
        finally:
            stop.set()
            writer.join(30)
    finally:
        memory.close()
        memory.unlink()
    assert outcomes["signed value"] > 0, outcomes


def test_inspect_shows_a_signed_frame():
    from serreg.inspection import inspect_frames

    frames = serreg.serialize([1], key=KEY).to_bytes() + serreg.serialize([2]).to_bytes()
    reports = list(inspect_frames(frames, {}))
    assert [r.signed for r in reports] == [True, False]
