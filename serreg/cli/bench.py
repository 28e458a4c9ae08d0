"""``serreg bench``: serreg against pickle5, cloudpickle, msgpack, msgspec, pyfory and Ray.

The suite lives in ``serreg.bench``; its extra dependencies come with
``pip install "serreg[bench]"``.
"""

from __future__ import annotations

from typing import Optional, Any

import sys

from ..bench import PAYLOADS, PEERS, draw_chart, format_details, format_summary, run_suite, write_json
from ..errors import SerregError
from .common import USAGE_ERROR, report_failure

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "bench",
        help="time serreg against its peers on standard payloads or your own value; print a table, write JSON and a chart",
        description="Round-trip serreg and its peers (pickle5, cloudpickle, msgpack, msgspec, pyfory and, where "
        "installed, Ray) on the standard payloads or on your own values, via the result object and via bytes. "
        "Reports the median wall time of every peer from one interleaved run and, where valgrind is installed, "
        "the CPU instructions per round trip under callgrind.",
    )
    parser.add_argument("--payloads", help="comma-separated standard payload names (default: all, or none when "
                        "--payload or --frames is given)")
    parser.add_argument("--payload", action="append", default=[], metavar="MODULE:CALLABLE",
                        help="your own value: MODULE:CALLABLE is called with no argument (a non-callable attribute "
                        "is the value itself); the current directory is importable; repeatable")
    parser.add_argument("--frames", action="append", default=[], metavar="FILE",
                        help="a file of serreg frames (as serreg writes them, one after another): each frame's value "
                        "is a payload; it is deserialized trusted, so use your own files; repeatable")
    parser.add_argument("--peers", help="comma-separated peer names (default: all; serreg is always included)")
    parser.add_argument("--repeats", type=int, default=7, help="samples per operation; the median is kept (default 7)")
    parser.add_argument("--min-time", type=float, default=0.02,
                        help="seconds each sample lasts at least, calls repeated back to back (default 0.02)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="size factor of the standard payloads; 1 is the size the names say (default 1)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: scale 0.001, 2 repeats, 1 ms samples, no memory runs, no instruction counts")
    parser.add_argument("--no-instructions", action="store_true", help="do not count instructions under callgrind")
    parser.add_argument("--details", action="store_true",
                        help="also print serialize/deserialize alone, sizes and memory peaks per peer")
    parser.add_argument("--json", metavar="PATH", default="bench.json", help="write the report here (default bench.json)")
    parser.add_argument("--chart", metavar="PATH", default="bench.png",
                        help="draw the chart here: each peer over the fastest, on a linear axis (default bench.png; "
                        "needs matplotlib)")
    parser.add_argument("--no-json", action="store_true", help="do not write the JSON report")
    parser.add_argument("--no-chart", action="store_true", help="do not draw the chart")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory runs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--list", action="store_true", help="list the payloads and peers and exit")
    parser.set_defaults(run=run)


# What pyproject.toml's bench extra brings that the payloads import (peers missing are reported as such).
_BENCH_EXTRA = frozenset({"numpy", "pyarrow", "tqdm", "matplotlib"})


def _names(text: Optional[str]) -> Optional[list[str]]:
    return None if not text else [name.strip() for name in text.split(",") if name.strip()]


def run(args: Any) -> int:
    if args.list:
        print("payloads:", ", ".join(PAYLOADS))
        print("peers:", ", ".join(PEERS))
        return 0
    scale, repeats, min_time = args.scale, args.repeats, args.min_time
    memory, instructions = not args.no_memory, not args.no_instructions
    if args.quick:
        scale, repeats, min_time, memory, instructions = 0.001, 2, 0.001, False, False
    try:
        report = run_suite(
            _names(args.payloads), _names(args.peers), scale=scale, repeats=repeats, min_time=min_time,
            memory=memory, progress=not args.no_progress, instructions=instructions,
            callables=args.payload, frame_files=args.frames,
            argv=["serreg", *sys.argv[1:]],  # the command as typed, without the interpreter's path
        )
    except ValueError as error:  # an option names what is not there: a usage error, as argparse's
        return report_failure("bench", error, USAGE_ERROR)
    except ImportError as error:
        if (error.name or "").partition(".")[0] in _BENCH_EXTRA:
            error = ImportError(f"{error}; the benchmark needs its extra: pip install 'serreg[bench]'")
        return report_failure("bench", error)
    except (OSError, AttributeError, RuntimeError, SerregError) as error:  # a file or module given
        return report_failure("bench", error)
    print(format_summary(report))
    if args.details:
        print()
        print(format_details(report))
    if not args.no_json:
        write_json(report, args.json)
        print(f"\nwrote {args.json}")
    if not args.no_chart:
        try:
            draw_chart(report, args.chart)
        except ImportError as error:
            print(f"no chart: matplotlib is not installed ({error}); pip install 'serreg[bench]'", file=sys.stderr)
        else:
            print(f"wrote {args.chart}")
    return 0
