"""The suite's report: a summary table (wall medians and instruction counts side by side), a
detailed table, serreg against the fastest peer, JSON and a chart."""

from __future__ import annotations

from typing import Optional, Any

import json

from .operations import MODES
from .suite import REFERENCE, fastest_peer

__all__ = [
    "CHART_CAP", "COLUMNS", "VIA", "draw_chart", "format_details", "format_summary", "format_table",
    "versus_fastest", "write_json",
]

VIA = {"in_process": "result", "frame": "bytes"}


def _time(seconds: Any) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f}us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f}ms"
    return f"{seconds:.2f}s"


def _instructions(count: Any) -> str:
    if count is None:
        return "-"
    if count < 10_000:
        return f"{count:.0f}"
    if count < 10_000_000:
        return f"{count / 1e3:.1f}k"
    return f"{count / 1e6:.1f}M"


def _size(count: Any) -> str:
    if count is None:
        return "-"
    if count < 10_000:
        return f"{count}B"
    if count < 10_000_000:
        return f"{count / 1024:.0f}KiB"
    return f"{count / 2**20:.1f}MiB"


def _ratio(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}x"


COLUMNS = (
    ("peer", 11), ("ser", 9), ("deser", 9), ("rt", 9), ("f.ser", 9), ("f.deser", 9), ("f.rt", 9),
    ("bytes", 9), ("f.bytes", 9), ("peak rss", 9), ("peak py", 9), ("f.peak rss", 10), ("f.peak py", 9),
    ("srg/peer rt", 11), ("f.rt", 7),
)


def _peers_measured(report: dict[Any, Any]) -> list[Any]:
    names = []
    for entry in report["payloads"].values():
        for name, result in entry["results"].items():
            if name not in names and (result.get("supported") or name == REFERENCE):
                names.append(name)
    return names


def _cell(result: dict[Any, Any], mode: str) -> str:
    if not result.get("supported"):
        return "n/a"
    facts = result[mode]
    seconds = facts.get("round_trip_s")
    if seconds is None:
        return "n/a"
    mark = " (wrong value)" if facts.get("correct") is False else ""
    return f"{_time(seconds)} / {_instructions(facts.get('instructions'))}{mark}"


def format_summary(report: dict[Any, Any]) -> str:
    """A markdown table: per payload and way (result object, bytes), every peer's round trip as
    ``wall median / instructions``, and serreg's figures over the fastest peer's."""
    peers = _peers_measured(report)
    lines = [
        f"serreg bench: scale {report['scale']}, {report['repeats']} repeats "
        f"(python {report['python']}, {report['platform']})",
        "round trip per call: wall median / CPU instructions (callgrind; '-' = not counted). result = the "
        "in-process result object, bytes = through one contiguous byte string. serreg/fastest: serreg's figure "
        "over the fastest correct peer's (below 1: serreg is faster); n/a = the peer cannot take the payload.",
    ]
    if isinstance(report.get("instructions"), str) and not report["instructions"].startswith("CPU"):
        lines.append(f"instructions not counted: {report['instructions']}")
    for name, peer in report["peers"].items():
        if not peer["available"]:
            lines.append(f"skipped {name}: {peer['reason']}")
    lines.append("")
    lines.append("| payload | via | " + " | ".join(peers) + " | serreg/fastest wall | serreg/fastest instr |")
    lines.append("|---|---|" + "---|" * len(peers) + "---|---|")
    versus = {(v["payload"], v["mode"]): v for v in versus_fastest(report)}
    for payload, entry in report["payloads"].items():
        for mode in MODES:
            cells = [_cell(entry["results"].get(name, {}), mode) for name in peers]
            v = versus.get((payload, mode), {})
            wall = f"{_ratio(v.get('wall_ratio'))} ({v['wall_peer']})" if v.get("wall_peer") else "-"
            instr = f"{_ratio(v.get('instructions_ratio'))} ({v['instructions_peer']})" if v.get("instructions_peer") else "-"
            lines.append(f"| {payload} | {VIA[mode]} | " + " | ".join(cells) + f" | {wall} | {instr} |")
    lines.append("")
    lines.append("payloads: " + "; ".join(f"{p}: {e['description']}" for p, e in report["payloads"].items()))
    return "\n".join(lines)


def format_table(report: dict[Any, Any]) -> str:
    """The summary, then the details."""
    return format_summary(report) + "\n\n" + format_details(report)


def format_details(report: dict[Any, Any]) -> str:
    """One block per payload: a row per peer; ``f.`` columns are through the contiguous frame.

    rt is a round trip (serialize then deserialize); bytes are in-band plus
    out-of-band; peak rss / peak py are the memory peaks of one round trip;
    srg/peer is serreg's round-trip time over the peer's (below 1: serreg faster).
    """
    lines = [
        f"details: scale {report['scale']}, {report['repeats']} repeats, median per call "
        f"(python {report['python']}, {report['platform']})",
        "columns: ser/deser/rt = in-process serialize/deserialize/round trip; f.* = through one contiguous frame; "
        "bytes = in-band + out-of-band; peak rss / peak py = RSS high-water rise / tracemalloc peak of one round trip; "
        "srg/peer = serreg time / peer time (< 1: serreg faster); '!' = wrong value back",
    ]
    for name, peer in report["peers"].items():
        if not peer["available"]:
            lines.append(f"skipped {name}: {peer['reason']}")
    header = " ".join(title.rjust(width) if i else title.ljust(width) for i, (title, width) in enumerate(COLUMNS))
    for payload, entry in report["payloads"].items():
        lines.append("")
        lines.append(f"{payload} ({entry['description']})")
        lines.append(header)
        for name, result in entry["results"].items():
            if not result.get("supported"):
                lines.append(f"{name:<11} not supported: {result['reason']}")
                continue
            inp, frm = result["in_process"], result["frame"]
            ratios = entry["ratios"].get(name, {})
            mark = "!" if inp.get("correct") is False or frm.get("correct") is False else ""
            cells = [
                (name + mark),
                _time(inp.get("serialize_s")), _time(inp.get("deserialize_s")), _time(inp.get("round_trip_s")),
                _time(frm.get("serialize_s")), _time(frm.get("deserialize_s")), _time(frm.get("round_trip_s")),
                _size(inp.get("wire_bytes")), _size(frm.get("wire_bytes")),
                _size(inp.get("peak_rss_bytes")), _size(inp.get("peak_traced_bytes")),
                _size(frm.get("peak_rss_bytes")), _size(frm.get("peak_traced_bytes")),
                "" if name == REFERENCE else _ratio(ratios.get("in_process.round_trip")),
                "" if name == REFERENCE else _ratio(ratios.get("frame.round_trip")),
            ]
            lines.append(" ".join(
                cell.rjust(width) if i else cell.ljust(width) for i, (cell, (_, width)) in enumerate(zip(cells, COLUMNS))
            ))
        for name, result in entry["results"].items():
            reasons = {result.get(mode, {}).get("reason") for mode in MODES} - {None}
            for reason in sorted(reasons):
                lines.append(f"  note {name}: {reason}")
    return "\n".join(lines)


def versus_fastest(report: dict[Any, Any]) -> list[dict[Any, Any]]:
    """Per payload and mode: the fastest correct peer by wall median and by instructions, and
    serreg's figure over theirs (below 1: serreg is faster)."""
    rows = []
    for payload, entry in report["payloads"].items():
        mine = entry["results"].get(REFERENCE, {})
        if not mine.get("supported"):
            continue
        for mode in MODES:
            row = {"payload": payload, "mode": mode}
            best = fastest_peer(entry["results"], mode)
            seconds = mine[mode].get("round_trip_s")
            if best is not None and seconds:
                row.update(wall_peer=best[0], wall_ratio=seconds / best[1])
            fewest = _fewest_instructions(entry["results"], mode)
            count = mine[mode].get("instructions")
            if fewest is not None and count:
                row.update(instructions_peer=fewest[0], instructions_ratio=count / fewest[1])
            rows.append(row)
    return rows


def _fewest_instructions(results: dict[Any, Any], mode: str) -> Any:
    best = None
    for name, result in results.items():
        if name.startswith(REFERENCE) or not result.get("supported"):
            continue
        count = result[mode].get("instructions")
        if count and result[mode].get("correct") and (best is None or count < best[1]):
            best = (name, count)
    return best


def write_json(report: dict[Any, Any], path: Any) -> None:
    data = dict(report)
    data["versus_fastest"] = versus_fastest(report)
    with open(path, "w") as file:
        json.dump(data, file, indent=1)
        file.write("\n")


# Ratios above this are drawn at the top edge with their value written beside them.
CHART_CAP = 8.0


def draw_chart(report: dict[Any, Any], path: Any) -> None:
    """Each peer's round trip over the fastest peer's in the same run, per payload: points on a
    linear axis (1 = fastest), wall medians and, where counted, instructions; result object and bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    payload_names = list(report["payloads"])
    peers = [  # those with a round trip somewhere (Ray has none)
        name for name in _peers_measured(report)
        if any(entry["results"].get(name, {}).get(mode, {}).get("round_trip_s")
               for entry in report["payloads"].values() for mode in MODES)
    ]
    metrics = [("round_trip_s", "wall median")]
    if any(entry["results"].get(REFERENCE, {}).get(mode, {}).get("instructions")
           for entry in report["payloads"].values() for mode in MODES):
        metrics.append(("instructions", "CPU instructions"))
    colors = plt.get_cmap("tab10").colors  # type: ignore[attr-defined]  # tab10 is a ListedColormap
    markers = "os^Dv<>pPX"
    figure, axes = plt.subplots(len(metrics), len(MODES), figsize=(max(10, 1.1 * len(payload_names) * 2), 4.5 * len(metrics)),
                                squeeze=False, sharey=True)
    for row, (metric, title) in enumerate(metrics):
        for column, mode in enumerate(MODES):
            axis = axes[row][column]
            for i, peer in enumerate(peers):
                xs, ys = [], []
                for j, payload in enumerate(payload_names):
                    ratio = _over_fastest(report["payloads"][payload]["results"], peer, mode, metric)
                    if ratio is None:
                        continue
                    x = j + (i - (len(peers) - 1) / 2) * 0.1
                    xs.append(x)
                    ys.append(min(ratio, CHART_CAP))
                    if ratio > CHART_CAP:
                        axis.annotate(f"{ratio:.0f}x", (x, CHART_CAP), textcoords="offset points", xytext=(0, -14),
                                      fontsize=7, color=colors[i % len(colors)], ha="center", rotation=90)
                axis.scatter(xs, ys, label=peer, color=colors[i % len(colors)], marker=markers[i % len(markers)],
                             s=60 if peer == REFERENCE else 30, zorder=3 if peer == REFERENCE else 2)
            axis.axhline(1.0, color="black", linewidth=0.8)
            axis.set_ylim(0, CHART_CAP * 1.05)
            axis.set_title(f"{title}, via {VIA[mode]}")
            axis.set_ylabel("round trip / fastest peer's (linear; 1 = fastest)")
            axis.grid(axis="y", alpha=0.3)
            axis.set_xlim(-0.5, len(payload_names) - 0.5)
            axis.set_xticks(range(len(payload_names)))
            axis.set_xticklabels(payload_names, rotation=35, ha="right", fontsize=8)
    axes[0][0].legend(ncol=min(4, len(peers)), fontsize="small")
    figure.suptitle(f"serreg bench (scale {report['scale']}): each round trip over the fastest one of the same run\n"
                    f"(points above {CHART_CAP:g} are drawn at the top, their value written beside them)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _over_fastest(results: dict[Any, Any], peer: str, mode: str, metric: str) -> Optional[float]:
    """``peer``'s figure over the smallest figure of any correct result (serreg's included)."""
    figures = {
        name: result[mode].get(metric) for name, result in results.items()
        if result.get("supported") and result[mode].get("correct") and result[mode].get(metric)
    }
    if peer not in figures or not figures:
        return None
    return float(figures[peer] / min(figures.values()))
