"""HMAC-SHA256 signed frames (docs/FORMAT.md, section 4.2).

A signed frame has flag bit 0 set and ends with a 32-byte trailer: the
HMAC-SHA256, under the shared key, of every frame byte before the trailer
(the header included, so the flag and the lengths are covered too). A reader
given a key checks the trailer before it decodes anything.
"""

from __future__ import annotations

import hashlib
import hmac

from ..errors import SignatureError

FLAG_SIGNED = 0x01
SIGNATURE_SIZE = 32
MIN_KEY_SIZE = 16


def check_key(key) -> bytes:
    """Return ``key`` as bytes, or raise TypeError/ValueError saying what a key must be."""
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"a signing key must be bytes, not {type(key).__name__}")
    key = bytes(key)
    if len(key) < MIN_KEY_SIZE:
        raise ValueError(
            f"a signing key must be at least {MIN_KEY_SIZE} bytes (it is {len(key)}); "
            "use 32 random bytes, e.g. secrets.token_bytes(32)"
        )
    return key


def sign(key: bytes, pieces) -> bytes:
    """The HMAC-SHA256 of the concatenation of ``pieces``, computed piece by piece (no join)."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for piece in pieces:
        mac.update(piece)
    return mac.digest()


def verify(key: bytes, view: memoryview, signed_end: int) -> None:
    """Check the trailer at ``view[signed_end:]`` against the HMAC of ``view[:signed_end]``."""
    expected = hmac.new(key, view[:signed_end], hashlib.sha256).digest()
    if not hmac.compare_digest(expected, bytes(view[signed_end:signed_end + SIGNATURE_SIZE])):
        raise SignatureError(
            "the frame's signature does not match: it was signed with another key or altered after signing; "
            "nothing was decoded",
            offset=signed_end,
        )


def require_signed(signed: bool) -> None:
    if not signed:
        raise SignatureError(
            "the frame is not signed, but a key was given: refusing to decode it. Have the writer call "
            "serialize(..., key=...) with the shared key, or deserialize without key= if unsigned frames "
            "are acceptable",
            offset=5,
        )

