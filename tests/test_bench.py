"""The benchmark suite runs end to end on tiny payloads, and serreg's values in it are right.

No timing is asserted here: the machine is shared. What must hold is that the
suite still runs, that it checks every peer's values, and that serreg's are
correct and type-exact.
"""

import json
import pickle

import pytest

from serreg import bench
from serreg.bench.callgrind import unavailable
from serreg.bench.payloads import PAYLOADS, Record, same_value
from serreg.bench.peers import PEERS, Peer
from serreg.bench.report import versus_fastest
from serreg.cli import main
from serreg.wire.class_id import class_id_hash

import serreg

TINY = 0.0005


@pytest.fixture(scope="module")
def tiny_report():
    return bench.run_suite(
        peers=["serreg", "pickle5", "msgpack"], scale=TINY, repeats=2, min_time=0.0001, progress=False
    )


def test_every_payload_is_measured_for_serreg(tiny_report):
    assert list(tiny_report["payloads"]) == list(PAYLOADS)
    for payload, entry in tiny_report["payloads"].items():
        serreg = entry["results"]["serreg"]
        assert serreg["supported"], payload
        for mode in ("in_process", "frame"):
            facts = serreg[mode]
            assert facts["correct"] is True, (payload, mode)
            for step in ("serialize", "deserialize", "round_trip"):
                assert facts[f"{step}_s"] > 0, (payload, mode, step)
                assert len(facts["samples_s"][step]) == 2
            assert facts["wire_bytes"] > 0
            assert facts["peak_traced_bytes"] >= 0


def test_serreg_frame_bytes_are_its_frame_length(tiny_report):
    import serreg

    for payload, entry in tiny_report["payloads"].items():
        value = PAYLOADS[payload](TINY)
        assert entry["results"]["serreg"]["frame"]["wire_bytes"] == len(serreg.serialize(value).to_bytes())


def test_peers_are_compared_and_unsupported_ones_say_why(tiny_report):
    small = tiny_report["payloads"]["small_dict"]
    assert set(small["ratios"]) == {"pickle5", "msgpack"}
    assert small["ratios"]["pickle5"]["in_process.round_trip"] > 0
    ndarray = tiny_report["payloads"]["ndarray_100MB"]["results"]["msgpack"]
    assert ndarray["supported"] is False and "msgpack" in ndarray["reason"]


def test_table_covers_every_payload_without_issue_numbers(tiny_report):
    table = bench.format_table(tiny_report)
    for payload in PAYLOADS:
        assert f"| {payload} | result |" in table and f"| {payload} | bytes |" in table
    assert "issue" not in table.lower() and "goal" not in table.lower()
    rows = {(row["payload"], row["mode"]) for row in versus_fastest(tiny_report)}
    assert ("small_dict", "in_process") in rows and ("dataclasses_1k_main", "frame") in rows


def test_versus_fastest_reads_wall_and_instructions():
    def result(seconds, instructions, correct=True):
        facts = {"round_trip_s": seconds, "instructions": instructions, "correct": correct, "wire_bytes": 1}
        return {"supported": True, "in_process": dict(facts), "frame": dict(facts)}

    report = {"scale": 1, "payloads": {"small_dict": {"results": {
        "serreg": result(3.0, 300), "pickle5": result(2.0, 400), "msgpack": result(4.0, 100),
        "msgspec": result(1.0, 50, correct=False),  # a wrong value is never the fastest
    }}}}
    [row, _] = versus_fastest(report)
    assert row["wall_peer"] == "pickle5" and row["wall_ratio"] == 1.5
    assert row["instructions_peer"] == "msgpack" and row["instructions_ratio"] == 3.0


def test_a_peer_that_returns_a_wrong_value_is_flagged(monkeypatch):
    class TupleLosingPeer(Peer):
        name = "lossy"

        def serialize(self, value):
            return value

        def deserialize(self, result):
            return list(result) if isinstance(result, (list, tuple)) else result

        def wire_bytes(self, result):
            return 1

        def to_frame(self, value):
            return pickle.dumps(value)

        def from_frame(self, frame):
            return self.deserialize(pickle.loads(frame))

    monkeypatch.setitem(PEERS, "lossy", TupleLosingPeer)
    monkeypatch.setitem(PAYLOADS, "tuple", lambda scale: (1, 2))
    report = bench.run_suite(["tuple"], ["lossy"], scale=1, repeats=1, min_time=0.0001, memory=False, progress=False)
    results = report["payloads"]["tuple"]["results"]
    assert results["lossy"]["in_process"]["correct"] is False
    assert results["lossy"]["frame"]["correct"] is False
    assert results["serreg"]["in_process"]["correct"] is True


@pytest.mark.parametrize("expected, actual", [
    ((1, 2), [1, 2]),
    ({"a": 1}, {"a": 1.0}),
    ([True], [1]),
    (Record(1, "a", 0.5, True, ["x"]), Record(1, "a", 0.5, True, ("x",))),
])
def test_same_value_sees_type_changes(expected, actual):
    assert not same_value(expected, actual)
    assert same_value(expected, expected)


def test_same_value_sees_array_dtype_and_arrow_changes():
    np = pytest.importorskip("numpy")
    pa = pytest.importorskip("pyarrow")
    assert not same_value(np.arange(3, dtype=np.int64), np.arange(3, dtype=np.int32))
    table = PAYLOADS["arrow_1M"](TINY)
    assert same_value(table, table)
    assert not same_value(table, table.slice(1))
    assert not same_value(table, table.cast(pa.schema([(f.name, pa.large_string() if f.name == "name" else f.type)
                                                        for f in table.schema])))


def test_serreg_bench_command_writes_json_and_chart(tmp_path, capsys):
    json_path = tmp_path / "bench.json"
    chart_path = tmp_path / "bench.png"
    args = ["bench", "--quick", "--no-progress", "--payloads", "small_dict,ndarray_100MB", "--peers", "pickle5",
            "--json", str(json_path)]
    try:
        import matplotlib  # noqa: F401
        args += ["--chart", str(chart_path)]
        expect_chart = True
    except ImportError:
        args += ["--no-chart"]
        expect_chart = False
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "| small_dict | result |" in out and "| ndarray_100MB | bytes |" in out
    assert "issue" not in out.lower()
    report = json.loads(json_path.read_text())
    assert set(report["payloads"]) == {"small_dict", "ndarray_100MB"}
    assert report["payloads"]["small_dict"]["results"]["serreg"]["in_process"]["correct"] is True
    assert report["versus_fastest"]
    if expect_chart:
        assert chart_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_serreg_bench_times_the_users_own_value_and_frames(tmp_path, capsys, monkeypatch):
    import serreg

    (tmp_path / "my_payload.py").write_text("def make():\n    return {'rows': [(i, str(i)) for i in range(20)]}\n")
    frames = tmp_path / "values.srg"
    frames.write_bytes(serreg.serialize([1, 2, 3]).to_bytes() + serreg.serialize({"a": b"xy"}).to_bytes())
    monkeypatch.chdir(tmp_path)
    args = ["bench", "--quick", "--no-progress", "--no-json", "--no-chart", "--peers", "pickle5,msgpack",
            "--payload", "my_payload:make", "--frames", str(frames)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "| my_payload:make | result |" in out
    assert f"| {frames}#0 | bytes |" in out and f"| {frames}#1 | result |" in out
    assert "small_dict" not in out  # only the user's values unless --payloads names more
    assert main(["bench", "--quick", "--no-progress", "--no-json", "--no-chart", "--payload", "nope"]) == 2
    assert "module:callable" in capsys.readouterr().err


@pytest.mark.skipif(unavailable() is not None, reason=f"no callgrind here: {unavailable()}")
def test_instructions_are_counted_under_callgrind():
    report = bench.run_suite(["small_dict"], ["msgpack"], scale=1, repeats=1, min_time=0.0001, memory=False,
                             progress=False, instructions=True)
    results = report["payloads"]["small_dict"]["results"]
    for name in ("serreg", "msgpack"):
        for mode in ("in_process", "frame"):
            assert results[name][mode]["instructions"] > 100, (name, mode)
    # A round trip of a small dict is thousands of instructions, not millions (start-up cancelled out).
    assert results["msgpack"]["in_process"]["instructions"] < 200_000
    assert "| small_dict | result |" in bench.format_summary(report)


def test_serreg_bench_refuses_an_unknown_payload(capsys):
    assert main(["bench", "--payloads", "nope", "--no-progress", "--no-json", "--no-chart"]) == 2
    assert "unknown payload" in capsys.readouterr().err


def test_serreg_with_structs_declares_the_payloads_dataclass_and_round_trips_it():
    report = bench.run_suite(
        peers=["serreg+struct"], payloads=["dataclasses_1k", "dataclasses_1k_main", "small_dict"],
        scale=0.005, repeats=2, min_time=0.0001, progress=False,
    )
    for payload in ("dataclasses_1k", "dataclasses_1k_main"):
        facts = report["payloads"][payload]["results"]["serreg+struct"]
        assert facts["supported"] and facts["in_process"]["correct"] is True and facts["frame"]["correct"] is True
    small = report["payloads"]["small_dict"]["results"]["serreg+struct"]
    assert small["supported"] is False and "no dataclass" in small["reason"]
    value = PAYLOADS["dataclasses_1k"](0.005)
    frame = serreg.serialize(value).to_bytes()
    assert class_id_hash("serreg.structs") not in frame[:64]  # the default registry pickles them
    peer = PEERS["serreg+struct"]()
    peer.check(value)
    assert class_id_hash("serreg.structs") in bytes(peer.to_frame(value))[:64]
