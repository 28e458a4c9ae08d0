"""The operations the suite times and counts: each peer's serialize, deserialize and round trip of a value.

In two modes: ``in_process`` (the peer's own result object, out-of-band
buffers kept apart) and ``frame`` (one contiguous byte string and back).
"""

from __future__ import annotations

from .peers import Unsupported
from typing import Any

__all__ = ["MODES", "STEPS", "operations"]

MODES = ("in_process", "frame")
STEPS = ("serialize", "deserialize", "round_trip")


def operations(peer: Any, value: Any) -> dict[Any, Any]:
    """(mode, step) -> zero-argument callable, or the reason it cannot run."""
    operations: dict[tuple[str, str], Any] = {}
    try:
        result = peer.serialize(value)
    except Unsupported as error:
        result = error
    try:
        frame = peer.to_frame(value)
    except Unsupported as error:
        frame = error
    for mode, make, serialize, deserialize in (
        ("in_process", result, peer.serialize, peer.deserialize),
        ("frame", frame, peer.to_frame, peer.from_frame),
    ):
        if isinstance(make, Unsupported):
            for step in STEPS:
                operations[mode, step] = str(make)
            continue
        operations[mode, "serialize"] = lambda serialize=serialize: serialize(value)
        try:
            deserialize(make)
        except Unsupported as error:
            operations[mode, "deserialize"] = operations[mode, "round_trip"] = str(error)
            continue
        operations[mode, "deserialize"] = lambda deserialize=deserialize, made=make: deserialize(made)
        operations[mode, "round_trip"] = (
            lambda serialize=serialize, deserialize=deserialize: deserialize(serialize(value))
        )
    return operations
