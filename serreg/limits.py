"""Limits on what one deserialize call accepts, so hostile bytes cannot exhaust a process.

Every check is done once per frame or once per nested value, never per
element: msgpack enforces its own per-document bounds (a declared length can
never exceed the bytes it is read from; containers nest at most
:data:`MSGPACK_MAX_NESTING` deep), and these cover what msgpack cannot see.

A deserialize call also has a memory budget that grows with the frame's size
(``memory_allowance + memory_per_byte * frame size``). Serializers that build
objects whose number the frame chooses (Arrow fields, arrays and batches)
:func:`charge` their cost against it *before* building them, so a small frame
cannot make the reader build a large value out of nothing.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Optional

from .errors import LimitExceededError

__all__ = ["Limits", "charge"]

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

    ``memory_per_byte`` and ``memory_allowance``: what serializers may build
    for one frame of S bytes, in bytes of memory, is at most
    ``memory_allowance + memory_per_byte * S`` (16 and 32 MiB). Only what a
    serializer charges with :func:`charge` counts (Arrow fields, arrays and
    batches, at their measured cost), before it is built.
    """

    max_frame_size: Optional[int] = 4 * 2**30
    max_buffers: Optional[int] = 100_000
    max_depth: Optional[int] = 100
    memory_per_byte: Optional[int] = 16
    memory_allowance: int = 32 * 2**20

    def __post_init__(self) -> None:
        for name in ("max_frame_size", "max_buffers", "max_depth", "memory_per_byte", "memory_allowance"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 0):
                raise ValueError(f"Limits.{name} must be a non-negative int or None, not {value!r}")


DEFAULT_LIMITS = Limits()


class DecodeState:
    """What one deserialize call enforces while it decodes nested values.

    ``owner`` is the decoder of the registry running the call (a nested call on
    the same registry joins the call, one on another registry starts its own);
    ``allowed`` is the set of ClassIDHashes untrusted mode decodes, or None
    when the call is trusted; ``depth`` counts the nested values being decoded;
    ``unpickling`` is what the pickle fallback unpickling in this call needs
    (its registry's lookup of a serializer by class ID), or None.
    """

    __slots__ = ("owner", "allowed", "max_depth", "depth", "budget", "budget_size", "frame_size", "unpickling")

    def __init__(self, owner: object, allowed: Optional[frozenset[Any]], max_depth: Optional[int]) -> None:
        self.owner = owner
        self.allowed = allowed
        self.max_depth = max_depth if max_depth is not None else 1 << 62
        self.depth = 0
        self.budget: Optional[int] = None  # bytes serializers may still build, or None (no budget)
        self.budget_size = 0
        self.frame_size = 0
        self.unpickling: Any = None

    def set_budget(self, frame_size: int, limits: Limits) -> None:
        """Give the call its memory budget for a frame of ``frame_size`` bytes."""
        self.frame_size = frame_size
        if limits.memory_per_byte is None:
            self.budget = None
        else:
            self.budget = self.budget_size = limits.memory_allowance + limits.memory_per_byte * frame_size

    def charge(self, cost: int, what: str) -> None:
        if self.budget is None:
            return
        self.budget -= cost
        if self.budget < 0:
            raise LimitExceededError(
                f"decoding would build more than {self.budget_size:,} bytes of {what} and other charged values "
                f"for a frame of {self.frame_size:,} bytes (memory_allowance + memory_per_byte x frame size); "
                "raise it with serreg.Limits(memory_per_byte=...) if such frames are expected"
            )


def trusted_top_state(owner: object, limits: Limits, frame_size: int) -> DecodeState:
    """The state of a trusted call decoding its top-level value (depth 1) from a frame of
    ``frame_size`` bytes: ``DecodeState(owner, None, limits.max_depth)``, its depth 1 and
    ``set_budget(frame_size, limits)``, with no other Python call made on the way."""
    state = _new_state(DecodeState)
    state.owner = owner
    state.allowed = None
    max_depth = limits.max_depth
    state.max_depth = max_depth if max_depth is not None else 1 << 62
    state.depth = 1
    state.unpickling = None
    state.frame_size = frame_size
    per_byte = limits.memory_per_byte
    if per_byte is None:
        state.budget = None
        state.budget_size = 0
    else:
        state.budget = state.budget_size = limits.memory_allowance + per_byte * frame_size
    return state


_new_state = DecodeState.__new__


# The state of the deserialize call running in this context; nested values and
# serializers that call serreg.deserialize themselves share it.
DECODE_STATE: ContextVar[Optional[DecodeState]] = ContextVar("serreg_decode_state", default=None)


def charge(cost: int, what: str) -> None:
    """Count ``cost`` bytes of memory that a serializer is about to build for ``what``
    against the budget of the running deserialize call (LimitExceededError when it is
    spent); nothing outside a deserialize call."""
    state = DECODE_STATE.get()
    if state is not None:
        state.charge(cost, what)
