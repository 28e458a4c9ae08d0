"""Type stub of the compiled walk (``_walk.c``); the pure-Python twin is ``walk.walk_python``."""

from typing import Any

def walk(obj: object, kinds: dict[type, int], /) -> tuple[int, Any]: ...
