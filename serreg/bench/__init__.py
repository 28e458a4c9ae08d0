"""serreg's benchmark suite: standard payloads (or the user's own) through serreg and its peers
(pickle5, cloudpickle, msgpack, msgspec, pyfory, Ray where installed), via the result object and
via bytes: wall medians from one interleaved run, and CPU instructions per round trip under
callgrind.

Run it with ``serreg bench`` (or ``python -m serreg bench``); see ``serreg bench --help``.
Its optional dependencies come with ``pip install "serreg[bench]"``.
"""

from .payloads import PAYLOADS
from .peers import PEERS
from .report import draw_chart, format_details, format_summary, format_table, versus_fastest, write_json
from .suite import run_suite

__all__ = [
    "PAYLOADS", "PEERS", "draw_chart", "format_details", "format_summary", "format_table", "run_suite",
    "versus_fastest", "write_json",
]
