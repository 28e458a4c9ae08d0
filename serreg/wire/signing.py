"""HMAC-SHA256 signed frames, version 2 (docs/FORMAT.md, section 4.2).

A signed frame has flag bit 0x02 set and ends with a 32-byte trailer: the
HMAC-SHA256, under a key *derived* from the shared key, of every frame byte
before the trailer (the header included, so the flag and the lengths are
covered too). The derivation,
``SHA-256(b"serreg-frame-key-v2" || u64 big-endian length of key || key)``,
makes keys non-interchangeable: with the key used as given (RFC 2104), a key
equals itself plus trailing zero bytes, and a key longer than 64 bytes equals
its SHA-256. Frames of the retired scheme (flag 0x01, the key used as given)
are refused with a message that says so.

A reader given a key checks the trailer before it decodes anything, and
decodes exactly the bytes it checked: a frame that another process could
change (anything but an immutable ``bytes``) is first copied whole into
private memory (:func:`private_copy`).
"""

from __future__ import annotations

from typing import Union, Any

import hashlib
import hmac
import struct

from ..errors import SignatureError

FLAG_SIGNED = 0x02
FLAG_SIGNED_V1 = 0x01  # retired: HMAC with the raw key; refused by readers
SIGNATURE_SIZE = 32
MIN_KEY_SIZE = 16
_KEY_CONTEXT = b"serreg-frame-key-v2"


def check_key(key: Any) -> bytes:
    """Return ``key`` as bytes, or raise TypeError/ValueError saying what a key must be."""
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"a signing key must be bytes, not {type(key).__name__}")
    key_bytes = bytes(key)
    if len(key_bytes) < MIN_KEY_SIZE:
        raise ValueError(
            f"a signing key must be at least {MIN_KEY_SIZE} bytes (it is {len(key_bytes)}); "
            "use 32 random bytes, e.g. secrets.token_bytes(32)"
        )
    return key_bytes


def mac_key(key: bytes) -> bytes:
    """The HMAC key of signed frames v2: SHA-256 of a fixed context, the key's length
    (u64 big-endian) and the key, so no two different keys sign alike."""
    return hashlib.sha256(_KEY_CONTEXT + struct.pack(">Q", len(key)) + key).digest()


def sign(key: bytes, pieces: Any) -> bytes:
    """The trailer of a v2 signed frame over the concatenation of ``pieces``, fed piece by piece (no join)."""
    mac = hmac.new(mac_key(key), digestmod=hashlib.sha256)
    for piece in pieces:
        mac.update(piece)
    return mac.digest()


def verify(key: bytes, view: memoryview, signed_end: int) -> None:
    """Check the trailer at ``view[signed_end:]`` against the HMAC of ``view[:signed_end]``.

    ``view`` must be private memory (see :func:`private_copy`): the bytes checked
    here are the bytes decoded afterwards.
    """
    expected = hmac.new(mac_key(key), view[:signed_end], hashlib.sha256).digest()
    if not hmac.compare_digest(expected, bytes(view[signed_end:signed_end + SIGNATURE_SIZE])):
        raise SignatureError(
            "the frame's signature does not match: it was signed with another key or altered after signing; "
            "nothing was decoded",
            offset=signed_end,
        )


def private_copy(data: Any, view: memoryview, size: int) -> Union[bytes, bytearray, memoryview]:
    """``data`` itself when its memory cannot change (an immutable ``bytes``, or a view of
    one), else a copy of its first ``size`` bytes that no one else holds (a bytearray when
    the memory was writable, so decoded arrays stay writable, else bytes)."""
    if type(data) is bytes or (isinstance(data, memoryview) and type(data.obj) is bytes):
        return data
    return bytearray(view[:size]) if not view.readonly else bytes(view[:size])


def require_signed(signed: bool) -> None:
    if not signed:
        raise SignatureError(
            "the frame is not signed, but a key was given: refusing to decode it. Have the writer call "
            "serialize(..., key=...) with the shared key, or deserialize without key= if unsigned frames "
            "are acceptable",
            offset=5,
        )


def refuse_v1() -> SignatureError:
    return SignatureError(
        "the frame is signed with serreg's retired signature scheme (flag 0x01: HMAC-SHA256 under the key as "
        "given, which let different keys sign alike); this reader accepts only signed frames v2 (flag 0x02, "
        "docs/FORMAT.md section 4.2). Have the writer upgrade serreg and sign again",
        offset=5,
    )
