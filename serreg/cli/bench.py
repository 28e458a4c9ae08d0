"""``serreg bench``: serreg against pickle5, cloudpickle, msgpack, pyfory and Ray.

The suite lives in ``serreg.bench``; its extra dependencies come with
``pip install "serreg[bench]"``.
"""

from __future__ import annotations

from typing import Optional, Any

import sys

from ..bench import PAYLOADS, PEERS, draw_chart, format_table, run_suite, write_json


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "bench",
        help="time serreg against its peers on the standard payloads; print a table, write JSON and a chart",
        description="Time serreg against pickle5 (buffer_callback), cloudpickle, msgpack, pyfory and, where "
        "installed, Ray on the standard payloads, in-process and through a contiguous frame. Times are medians "
        "over repeats with the peers interleaved.",
    )
    parser.add_argument("--payloads", help="comma-separated payload names (default: all)")
    parser.add_argument("--peers", help="comma-separated peer names (default: all; serreg is always included)")
    parser.add_argument("--repeats", type=int, default=7, help="samples per operation; the median is kept (default 7)")
    parser.add_argument("--min-time", type=float, default=0.02,
                        help="seconds each sample lasts at least, calls repeated back to back (default 0.02)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="size factor of the payloads; 1 is the size the names say (default 1)")
    parser.add_argument("--json", metavar="PATH", default="bench.json", help="write the report here (default bench.json)")
    parser.add_argument("--chart", metavar="PATH", default="bench.png",
                        help="draw the ratio chart here (default bench.png; needs matplotlib)")
    parser.add_argument("--no-json", action="store_true", help="do not write the JSON report")
    parser.add_argument("--no-chart", action="store_true", help="do not draw the chart")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory runs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--list", action="store_true", help="list the payloads and peers and exit")
    parser.set_defaults(run=run)


def _names(text: Optional[str]) -> Optional[list[str]]:
    return None if not text else [name.strip() for name in text.split(",") if name.strip()]


def run(args: Any) -> int:
    if args.list:
        print("payloads:", ", ".join(PAYLOADS))
        print("peers:", ", ".join(PEERS))
        return 0
    try:
        report = run_suite(
            _names(args.payloads), _names(args.peers), scale=args.scale, repeats=args.repeats,
            min_time=args.min_time, memory=not args.no_memory, progress=not args.no_progress,
            argv=["serreg", *sys.argv[1:]],  # the command as typed, without the interpreter's path
        )
    except ValueError as error:
        print(f"serreg bench: {error}", file=sys.stderr)
        return 2
    print(format_table(report))
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
