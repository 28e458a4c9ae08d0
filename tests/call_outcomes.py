"""What a call gives, comparable across backends: the value as the frame a given registry writes, or the error."""

from __future__ import annotations

from typing import Any, Callable

import serreg


def outcome_written_by(writer: serreg.Registry, call: Callable[[], Any]) -> tuple[Any, ...]:
    """("value", its frame under ``writer``), ("error", type, message), or ("value not writable", type, message)
    for a value the reader made but no writer writes (say, 1,025 deep)."""
    try:
        value = call()
    except serreg.SerregError as error:
        return ("error", type(error).__name__, str(error))
    try:
        return ("value", writer.serialize(value).to_bytes())
    except serreg.SerregError as error:
        return ("value not writable", type(error).__name__, str(error))
