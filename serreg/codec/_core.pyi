"""Type stub of the compiled codec core (``_core.c``); ``compiled.py`` sets it up, ``pure.py`` is its twin."""

from contextvars import ContextVar
from typing import Any, Callable

class MsgpackCodec:
    def __init__(
        self,
        encode_nested: Callable[[Any], Any],
        decode_nested: Callable[..., Any],
        snapshots: Any,
        pure: Any,
    ) -> None: ...
    def pack(self, obj: Any, oob: list[Any], /) -> bytes: ...
    def unpack(self, data: Any, oob: Any, /) -> Any: ...

def set_class_hashes(hashes: dict[str, bytes], /) -> None: ...
def set_decode_state(state: ContextVar[Any], /) -> None: ...
