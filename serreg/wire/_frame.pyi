"""Type stub of the compiled frame writer and reader (``_frame.c``); twins in ``frame.py``."""

from typing import Any, Optional

def join_frame(in_band_parts: list[Any], buffers: list[Any], /) -> bytes: ...
def parse_frame(
    data: Any, max_frame_size: Optional[int], max_buffers: Optional[int], /
) -> Optional[tuple[int, int, tuple[tuple[int, int], ...]]]: ...
