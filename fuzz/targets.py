"""The fuzz checks beyond plain deserialize: signed frames, ``serreg inspect``, the
canonical form and digest, ``cas.Store`` and streams of frames (issue 11, section 7).

Each ``check_*(data)`` turns one fuzz input into a call of its entry point under
the amplification oracle and judges the outcome; anything it raises is a
finding. ``replay.py`` and the regression tests call the same functions.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import hmac
import io
import os
import shutil
import tempfile
import types

import msgpack

import serreg
from harness import ORACLE, expect, holder_of, make_registry, warm_up, write_back
from inputs import frame_from_input
from serreg.cli import inspect as inspect_command
from serreg.cas import IntegrityError, Store
from serreg.errors import CanonicalFormError, DeserializationError
from serreg.wire.frame import frame_pieces, read_frame_bytes
from serreg.wire.signing import SIGNATURE_SIZE, mac_key, sign

KEY = bytes(range(32))
UNTRUSTED = make_registry(trusted=False)
warm_up()
_STORE_PUTS_BEFORE_CLEANING = 500
_puts = 0
_scratch_directory = None


def scratch() -> str:
    """A directory for the files of this process's checks, made on first use: on a RAM disk
    where there is one, so writing a file for every input costs little."""
    global _scratch_directory
    if _scratch_directory is None:
        _scratch_directory = tempfile.mkdtemp(prefix="serreg-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        atexit.register(shutil.rmtree, _scratch_directory, True)
    return _scratch_directory


def check_signed(data: bytes) -> None:
    """Bit 4 of the first byte: 0, the rest is taken as a signed frame as it is (a forged
    or damaged signature: never decoded); 1, it is framed and signed with the key first,
    so mutations reach the decoder behind a valid signature, in every kind of memory."""
    frame = frame_from_input(data)
    resign = bool(data) and data[0] & 0x10
    if resign and len(frame) >= 32:
        body = bytearray(frame)
        body[5] = 0x02
        body[24:32] = (len(body) + SIGNATURE_SIZE).to_bytes(8, "little")
        frame = bytes(body) + sign(KEY, [bytes(body)])
    holder = holder_of(frame, data)
    outcome = expect(ORACLE.check(len(data), lambda: UNTRUSTED.deserialize(holder, key=KEY), "signed deserialize"),
                     DeserializationError)
    if not isinstance(outcome, DeserializationError):
        # Decoded with the key: the trailer must be the HMAC of the bytes before it.
        trailer = bytes(frame[-SIGNATURE_SIZE:])
        assert hmac.compare_digest(trailer, hmac.new(mac_key(KEY), frame[:-SIGNATURE_SIZE], "sha256").digest())
        write_back(UNTRUSTED, outcome)


def check_inspect(data: bytes) -> None:
    """``serreg inspect`` (text and --json) on the input's frame (or, in whole-frame mode,
    whatever frames follow the first byte) as a file: exit 0 with a report, or exit 1
    with exactly one line on standard error; never a traceback. The command runs as the
    command line runs it, without parsing the arguments again for every input."""
    content = frame_from_input(data)
    path = os.path.join(scratch(), "inspect.srg")
    with open(path, "wb") as f:
        f.write(content)
    for as_json in (False, True):
        arguments = types.SimpleNamespace(file=path, json=as_json, imports=[])
        streams = []

        def run():
            # Fresh streams per run: the oracle runs a slow call up to three times.
            out, err = io.StringIO(), io.StringIO()
            streams[:] = [out, err]
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                return inspect_command.run(arguments)

        status = expect(ORACLE.check(len(data), run, "serreg inspect"))
        assert status in (0, 1), status
        out, err = streams
        if status:
            assert out.getvalue() == "" and len(err.getvalue().splitlines()) == 1, err.getvalue()


def check_canonical(data: bytes) -> None:
    """A decoded value's digest, canonical frame and Store.put stay within the bound of
    the input, and the canonical form is a fixed point: its frame decodes to a value
    with the same digest."""
    frame = holder_of(frame_from_input(data), data)
    value = expect(ORACLE.check(len(data), lambda: UNTRUSTED.deserialize(frame), "deserialize"),
                   DeserializationError)
    if isinstance(value, DeserializationError):
        return

    def canonical():
        digest = UNTRUSTED.digest(value)
        again = UNTRUSTED.deserialize(UNTRUSTED.serialize(value, canonical=True).to_bytes())
        assert UNTRUSTED.digest(again) == digest, "the canonical form is not a fixed point"
        stored = _store().put(value)
        assert stored == digest
        return digest

    outcome = expect(ORACLE.check(len(data), canonical, "digest, canonical and Store.put"),
                     CanonicalFormError, serreg.SerializationError)
    if isinstance(outcome, serreg.SerializationError) and not isinstance(outcome, CanonicalFormError):
        if "nested too deeply" not in str(outcome) and "levels deep" not in str(outcome):
            raise outcome


def check_store_get(data: bytes) -> None:
    """Store.get of a record planted in the directory. Bit 4 of the first byte: 0, the
    rest is the record file itself, under some digest; 1, the input is framed and stored
    as put would store it (buffers of 64 bytes or more as blobs), then bits 5-7 pick a
    record or blob byte to flip. Outcomes: a value, IntegrityError or a DeserializationError."""
    store = _store()
    if data and data[0] & 0x10:
        try:
            parsed = serreg.FrameView(frame_from_input(data))
        except DeserializationError:
            return  # not a frame: nothing to store (the deserialize target covers this)
        section = bytes(parsed.in_band)
        buffers = list(parsed.buffers)
        digest = hashlib.sha256(b"".join(frame_pieces([section], buffers)[0])).digest()
        entries = []
        for buffer in buffers:
            if buffer.nbytes >= 64:
                blob = hashlib.sha256(buffer).digest()
                _plant(store._blob_path(blob), bytes(buffer), data, 0x20)
                entries.append([buffer.nbytes, blob])
            else:
                entries.append(bytes(buffer))
        _plant(store._value_path(digest), msgpack.packb([1, section, entries], use_bin_type=True), data, 0x40)
    else:
        digest = hashlib.sha256(data).digest()
        _plant(store._value_path(digest), data[1:], data, 0)
    expect(ORACLE.check(len(data), lambda: store.get(digest), "Store.get"), DeserializationError, IntegrityError)


def check_stream(data: bytes) -> None:
    """Frames read one after another from a stream (serreg.wire.frame.read_frame_bytes, as
    iter_frames does) and each decoded: every frame a value, until the end or the first
    DeserializationError."""
    stream = io.BytesIO(data[1:] if data else b"")

    def read_all():
        count = 0
        while True:
            frame = read_frame_bytes(stream, UNTRUSTED.limits)
            if frame is None:
                return count
            write_back(UNTRUSTED, UNTRUSTED.deserialize(frame))
            count += 1

    expect(ORACLE.check(len(data), read_all, "stream of frames"), DeserializationError)


def _store() -> Store:
    """A scratch store, emptied now and then so the fuzzer does not fill the disk."""
    global _puts
    _puts += 1
    directory = os.path.join(scratch(), "store")
    if _puts % _STORE_PUTS_BEFORE_CLEANING == 0:
        shutil.rmtree(directory, ignore_errors=True)
    return Store(directory, registry=UNTRUSTED, blob_threshold=64)


def _plant(path: str, content: bytes, data: bytes, flip_bit: int) -> None:
    """Write ``content`` at ``path``, with one byte flipped when the input's first byte has ``flip_bit``."""
    if flip_bit and data[0] & flip_bit and content:
        position = int.from_bytes(hashlib.sha256(data).digest()[:4], "little") % len(content)
        content = content[:position] + bytes([content[position] ^ 0x01]) + content[position + 1:]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(content)


CHECKS = {
    "signed": check_signed,
    "inspect": check_inspect,
    "canonical": check_canonical,
    "store": check_store_get,
    "stream": check_stream,
}
