"""serreg's benchmark suite: nine standard payloads against pickle5, cloudpickle,
msgpack, pyfory and Ray, in-process and through a contiguous frame.

Run it with ``serreg bench`` (or ``python -m serreg bench``); see ``serreg bench --help``.
Its optional dependencies come with ``pip install "serreg[bench]"``.
"""

from .payloads import PAYLOADS
from .peers import PEERS
from .report import draw_chart, format_table, goals, write_json
from .suite import run_suite

__all__ = ["PAYLOADS", "PEERS", "draw_chart", "format_table", "goals", "run_suite", "write_json"]
