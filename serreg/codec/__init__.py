"""The in-band codec: msgpack with nested values as ext type 0 (docs/FORMAT.md, section 3).

``MsgpackCodec`` packs and unpacks value trees; ``unpack_plain`` and the
checks of untrusted mode serve serializers that read their own msgpack
headers; ``array_header``/``map_header`` serve those that join pre-packed
members. Compiled parts sit beside their pure-Python twins here and export the
same names, picked once at import (``backend.py``; ``SERREG_PURE_PYTHON=1``
forces the pure ones): the codec (``_core.c`` through ``compiled.py``, and
``pure.py``) and the scan (``_scan.c``, ``scan.py``). ``top_method`` makes ``Registry.serialize`` and ``deserialize`` call the
codec first with no Python frame in between (compiled) or leaves them as they
are (pure). ``STRUCT_PLAN`` makes the
compiled codec's plan of a struct class (serreg/structs/plan.py); it is None
with the pure codec, whose struct writers are the Python ones.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from .checks import MAX_KEYS_PER_HASH, check_hash_spread, check_untrusted_structure, is_untrusted, unpack_plain
from .layout import MAX_NESTING, NESTED_EXT_TYPE, array_header, map_header
from .backend import BACKEND, COMPILED
from .scan import COMPILED as SCAN_COMPILED

STRUCT_PLAN: Optional[Callable[..., Any]]  # the compiled core's StructPlan (None: the pure codec writes structs)
if COMPILED:
    from .compiled import MsgpackCodec, StructPlan as STRUCT_PLAN, top_method
else:
    from .pure import MsgpackCodec  # type: ignore[assignment]  # the pure twin: the same interface
    from .top import top_method
    STRUCT_PLAN = None

__all__ = [
    "BACKEND",
    "COMPILED",
    "MAX_KEYS_PER_HASH",
    "MAX_NESTING",
    "NESTED_EXT_TYPE",
    "MsgpackCodec",
    "SCAN_COMPILED",
    "STRUCT_PLAN",
    "array_header",
    "check_hash_spread",
    "check_untrusted_structure",
    "is_untrusted",
    "map_header",
    "top_method",
    "unpack_plain",
]
