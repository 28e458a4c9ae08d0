"""The suite's report as a text table, a goal check, JSON and a PNG chart."""

from __future__ import annotations

import json

from .payloads import ZERO_COPY
from .suite import MODES, REFERENCE, fastest_peer
from typing import Any

# Issue 2, "Speed": in-process round trip, serreg over pickle5, at most this.
ISSUE2_PICKLE5_LIMITS = {"small_dict": 1.5, "ints_1k": 1.5, "strs_10k": 1.0, "ndarray_100MB": 2.0, "arrow_1M": 2.0}
ISSUE2_NDARRAY_LIMIT_S = 50e-6


def _time(seconds: Any) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f}us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f}ms"
    return f"{seconds:.2f}s"


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


def format_table(report: dict[Any, Any]) -> str:
    """One block per payload: a row per peer; ``f.`` columns are through the contiguous frame.

    rt is a round trip (serialize then deserialize); bytes are in-band plus
    out-of-band; peak rss / peak py are the memory peaks of one round trip;
    srg/peer is serreg's round-trip time over the peer's (below 1: serreg faster).
    """
    lines = [
        f"serreg bench: scale {report['scale']}, {report['repeats']} repeats, median per call "
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
    lines.append("")
    lines.extend(format_goals(report))
    return "\n".join(lines)


def goals(report: dict[Any, Any]) -> list[dict[Any, Any]]:
    """serreg's speed and size goals, each with what was measured and whether it is met.

    ``group``: "pickle5" (in-process speed against pickle protocol 5), "peers"
    (round trip against the fastest peer), "size" (bytes on the wire against pickle5's).
    """
    checks = []
    payloads = report["payloads"]

    def serreg_facts(payload: str, mode: str) -> dict[str, Any]:
        facts: dict[str, Any] = payloads[payload]["results"].get(REFERENCE, {}).get(mode, {})
        return facts

    for payload, limit in ISSUE2_PICKLE5_LIMITS.items():
        if payload not in payloads:
            continue
        ratio = payloads[payload]["ratios"].get("pickle5", {}).get("in_process.round_trip")
        checks.append({
            "group": "pickle5", "payload": payload, "goal": f"in-process round trip <= {limit}x pickle5",
            "measured": None if ratio is None else round(ratio, 3), "met": ratio is not None and ratio <= limit,
        })
        if payload == "ndarray_100MB":
            seconds = serreg_facts(payload, "in_process").get("round_trip_s")
            checks.append({
                "group": "pickle5", "payload": payload, "goal": "in-process round trip < 50 us",
                "measured": seconds, "met": seconds is not None and seconds < ISSUE2_NDARRAY_LIMIT_S,
            })
    for payload, entry in payloads.items():
        # serreg as installed, and serreg with an opt-in setting where the suite measured one.
        setups = [name for name in entry["results"] if name.startswith(REFERENCE) and entry["results"][name].get("supported")]
        for setup in setups:
            label = "" if setup == REFERENCE else f"{setup}: "
            for mode in MODES:
                best = fastest_peer(entry["results"], mode)
                mine = entry["results"][setup][mode].get("round_trip_s")
                if best is None or mine is None:
                    continue
                checks.append({
                    "group": "peers", "payload": payload, "goal": f"{label}{mode} round trip <= fastest peer ({best[0]})",
                    "measured": round(mine / best[1], 3), "met": mine <= best[1],
                })
            if payload in ZERO_COPY:
                continue
            pickle5 = entry["results"].get("pickle5", {})
            for mode in MODES:
                mine = entry["results"][setup][mode].get("wire_bytes")
                theirs = pickle5.get(mode, {}).get("wire_bytes") if pickle5.get("supported") else None
                if mine is None or not theirs:
                    continue
                checks.append({
                    "group": "size", "payload": payload, "goal": f"{label}{mode} bytes <= pickle5's",
                    "measured": f"{mine} vs {theirs}", "met": mine <= theirs,
                })
    return checks


def format_goals(report: dict[Any, Any]) -> list[str]:
    lines = ["goals (measured: serreg/peer ratio unless stated):"]
    if report["scale"] != 1:
        lines.append(f"  (scale {report['scale']}: the goals are stated for the full-size payloads, scale 1)")
    for check in goals(report):
        measured = check["measured"]
        if isinstance(measured, float) and check["goal"].endswith("us"):
            measured = _time(measured)
        lines.append(
            f"  {'met ' if check['met'] else 'MISS'} {check['group']:<7} {check['payload']:<15} "
            f"{check['goal']:<58} {measured}"
        )
    return lines


def write_json(report: dict[Any, Any], path: Any) -> None:
    data = dict(report)
    data["goals"] = goals(report)
    with open(path, "w") as file:
        json.dump(data, file, indent=1)
        file.write("\n")


def draw_chart(report: dict[Any, Any], path: Any) -> None:
    """Bars of serreg's round-trip time over each peer's, per payload; in-process above, frame below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    payload_names = list(report["payloads"])
    # Peers with at least one round-trip ratio (Ray has none); serreg's own opt-in setups are not peers.
    peers = [
        name for name in report["peers"]
        if not name.startswith(REFERENCE) and any(
            key.endswith(".round_trip") for entry in report["payloads"].values() for key in entry["ratios"].get(name, {})
        )
    ]
    colors = plt.get_cmap("tab10").colors  # type: ignore[attr-defined]  # tab10 is a ListedColormap
    figure, axes = plt.subplots(len(MODES), 1, figsize=(max(8, 1.3 * len(payload_names) + 2), 8), sharex=True)
    width = 0.8 / max(1, len(peers))
    for axis, mode in zip(axes, MODES):
        for i, peer in enumerate(peers):
            xs, ys = [], []
            for j, payload in enumerate(payload_names):
                ratio = report["payloads"][payload]["ratios"].get(peer, {}).get(f"{mode}.round_trip")
                if ratio is not None:
                    xs.append(j - 0.4 + width * (i + 0.5))
                    ys.append(ratio)
            axis.bar(xs, ys, width, label=peer, color=colors[i % len(colors)])
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_yscale("log")
        axis.set_ylabel("serreg time / peer time")
        axis.set_title(f"round trip, {mode.replace('_', '-')} (below 1: serreg faster)")
        axis.grid(axis="y", which="both", alpha=0.3)
    axes[-1].set_xticks(range(len(payload_names)))
    axes[-1].set_xticklabels(payload_names, rotation=30, ha="right")
    axes[0].legend(ncol=max(1, len(peers)), fontsize="small")
    figure.suptitle(f"serreg vs peers (scale {report['scale']}, median of {report['repeats']})")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
