"""Limits on what one deserialize call accepts, so hostile bytes cannot exhaust a process.

Every check is done once per frame or once per nested value, never per
element: msgpack enforces its own per-document bounds (a declared length can
never exceed the bytes it is read from; containers nest at most
:data:`MSGPACK_MAX_NESTING` deep), and these cover what msgpack cannot see.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Optional

__all__ = ["Limits"]

# msgpack-python's built-in limit on containers nested inside one msgpack document.
MSGPACK_MAX_NESTING = 1024


@dataclass(frozen=True)
class Limits:
    """Bounds for one ``deserialize`` call; ``None`` switches a bound off.

    ``max_frame_size``: largest contiguous frame, in bytes, accepted as input
    or read from a stream (4 GiB). Checked against the header before anything
    else is read, so a header declaring a huge frame costs nothing.

    ``max_buffers``: most out-of-band buffers in one frame (100,000). Each
    costs a table entry and a view, so this bounds the memory of the table.

    ``max_depth``: most values nested inside each other through serializers
    (a tuple in a dict in a list of tuples is 3 deep: plain msgpack lists and
    dicts do not count, msgpack bounds them itself) (100). Decoding never
    comes near Python's recursion limit before this is reached.
    """

    max_frame_size: Optional[int] = 4 * 2**30
    max_buffers: Optional[int] = 100_000
    max_depth: Optional[int] = 100

    def __post_init__(self) -> None:
        for name in ("max_frame_size", "max_buffers", "max_depth"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 0):
                raise ValueError(f"Limits.{name} must be a non-negative int or None, not {value!r}")


DEFAULT_LIMITS = Limits()


class DecodeState:
    """What one deserialize call enforces while it decodes nested values.

    ``owner`` is the decoder of the registry running the call (a nested call on
    the same registry joins the call, one on another registry starts its own);
    ``allowed`` is the set of ClassIDHashes untrusted mode decodes, or None
    when the call is trusted; ``depth`` counts the nested values being decoded.
    """

    __slots__ = ("owner", "allowed", "max_depth", "depth")

    def __init__(self, owner: object, allowed: Optional[frozenset], max_depth: Optional[int]) -> None:
        self.owner = owner
        self.allowed = allowed
        self.max_depth = max_depth if max_depth is not None else 1 << 62
        self.depth = 0


# The state of the deserialize call running in this context; nested values and
# serializers that call serreg.deserialize themselves share it.
DECODE_STATE: ContextVar[Optional[DecodeState]] = ContextVar("serreg_decode_state", default=None)
