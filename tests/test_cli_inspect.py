"""``serreg inspect``: what it shows of a frame (docs/FORMAT.md): the worked examples of the format,
buffers attributed to their owners in document order (and where the format leaves it uncertain),
pickles scanned without unpickling, user class IDs named only when known, every golden vector,
modules imported to register serializers, the text tree."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg import cli, inspection
from serreg.wire.class_id import class_id_hash


def _inspect_json(capsys, path, *options) -> dict:
    assert cli.main(["inspect", str(path), "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)



def test_inspect_matches_the_worked_examples_of_the_format(tmp_path, capsys):
    # docs/FORMAT.md, section 8.
    path = tmp_path / "dict.srg"
    path.write_bytes(serreg.serialize({"a": 1, "t": (1, "x")}).to_bytes())
    [frame] = _inspect_json(capsys, path)["frames"]
    assert (frame["length"], frame["in_band"], frame["buffers"]) == (61, {"offset": 32, "length": 29}, [])
    root = frame["value"]
    assert (root["class_id"], root["class_id_hash"], root["in_band_length"]) == ("dict", "6ab47d70854a8c69", 21)
    [[key_a, one], [key_t, nested]] = root["value"]["map"]
    assert (key_a, one, key_t) == ("a", 1, "t")
    assert (nested["class_id"], nested["class_id_hash"], nested["value"]) == ("tuple", "fb2c3dcbe52aa287", [1, "x"])

    path = tmp_path / "array.srg"
    path.write_bytes(serreg.serialize([np.arange(3, dtype=np.int16)]).to_bytes())
    [frame] = _inspect_json(capsys, path)["frames"]
    assert frame["length"] == 134 and frame["in_band"] == {"offset": 48, "length": 29}
    assert frame["buffers"] == [{"index": 0, "offset": 128, "length": 6, "alignment": 128, "owner": "numpy.ndarray"}]
    [array] = frame["value"]["value"]
    assert (array["class_id"], array["buffers"], array["value"]) == ("numpy.ndarray", [0], ["<i2", [3], "C"])


def test_inspect_attributes_buffers_in_document_order(tmp_path, capsys):
    table = pa.table({"x": pa.array([1, None, 3], type=pa.int64()), "s": ["a", "bb", "ccc"]})
    value = {"first": np.zeros(10, dtype=np.float32), "table": table, "blob": bytearray(b"0123456789")}
    data = serreg.serialize(value).to_bytes()
    path = tmp_path / "value.srg"
    path.write_bytes(data)
    [frame] = _inspect_json(capsys, path)["frames"]
    owners = [b["owner"] for b in frame["buffers"]]
    # ndarray: 1; table: x (validity, data) + s (validity, offsets, data) = 5; bytearray: 1
    assert owners == ["numpy.ndarray"] + ["ArrowTable"] * 5 + ["bytearray"]
    assert frame["unattributed_from"] is None
    assert [b["length"] for b in frame["buffers"]][0] == 40 and frame["buffers"][-1]["length"] == 10
    view = serreg.FrameView(data)
    assert [b["offset"] for b in frame["buffers"]] == view.buffer_offsets
    assert all(b["offset"] % 64 == 0 and b["alignment"] >= 64 for b in frame["buffers"])
    entries = dict((k, v) for k, v in frame["value"]["value"]["map"])
    assert entries["table"]["buffers"] == [1, 2, 3, 4, 5]
    assert entries["blob"]["buffers"] == [6]


class _Recorder:
    calls: list = []


def _side_effect():
    _Recorder.calls.append("unpickled")
    return "boom"


@dataclass
class _Unregistered:
    payload: np.ndarray

    def __reduce__(self):
        return (_side_effect, ())


def test_inspect_scans_pickles_without_unpickling(tmp_path, capsys):
    @dataclass
    class Holder:
        array: np.ndarray

    value = [_Unregistered(np.arange(3)), Holder(np.arange(100, dtype=np.int64))]
    path = tmp_path / "pickled.srg"
    path.write_bytes(serreg.serialize(value).to_bytes())  # the whole list is one pickle
    [frame] = _inspect_json(capsys, path)["frames"]
    assert frame["value"]["class_id"] == "serreg.pickle5" and frame["value"]["buffers"] == [0]
    assert "not unpickled" in frame["value"]["note"] and frame["buffers"][0]["length"] == 800

    per_value = serreg.Registry()
    per_value.configure_fallback(whole_values=False)
    path.write_bytes(per_value.serialize(value).to_bytes())
    [frame] = _inspect_json(capsys, path)["frames"]
    first, second = frame["value"]["value"]
    assert first["class_id"] == second["class_id"] == "serreg.pickle5"
    assert first["buffers"] == [] and second["buffers"] == [0]  # the ndarray inside stays out-of-band
    assert frame["buffers"][0]["length"] == 800
    assert "not unpickled" in first["note"]
    assert _Recorder.calls == []


def test_inspect_names_user_class_ids_only_when_known(tmp_path, capsys):
    class Point:
        pass

    class PointSerializer(serreg.Serializer):
        def serialize(self, obj):
            return serreg.SerializationResult(b"\x01\x02", [memoryview(b"abc")])

        def deserialize(self, in_band, oob):
            next(oob)
            return Point()

    private = serreg.Registry()
    private.register_serializer("tests.cli.Point", Point, PointSerializer())
    path = tmp_path / "points.srg"
    path.write_bytes(private.serialize({"p": Point(), "after": bytearray(b"xy")}).to_bytes())

    [frame] = _inspect_json(capsys, path)["frames"]
    [[_, point], [_, after]] = frame["value"]["value"]["map"]
    assert point["class_id"] is None and point["class_id_hash"] == class_id_hash("tests.cli.Point").hex()
    assert point["note"] == "unknown class ID" and point["value"] is None
    assert after["class_id"] == "bytearray" and after["buffers"] is None  # cannot know which buffer is whose
    assert frame["unattributed_from"] == 0

    assert cli.main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    assert "? [" + class_id_hash("tests.cli.Point").hex() + "] in-band 2 B, unknown class ID" in text

    serreg.register_serializer("tests.cli.Point", Point, PointSerializer())
    try:
        [frame] = _inspect_json(capsys, path)["frames"]
    finally:
        serreg.unregister_serializer("tests.cli.Point")
    point = frame["value"]["value"]["map"][0][1]
    assert point["class_id"] == "tests.cli.Point"
    assert point["note"] == "not a standard class ID: its in-band is not walked"


def test_inspect_attributes_buffers_around_unknown_values_where_the_format_makes_it_certain(tmp_path, capsys):
    class Opaque:
        pass

    class OpaqueSerializer(serreg.Serializer):
        def serialize(self, obj):
            return serreg.SerializationResult(b"", [memoryview(b"first"), memoryview(b"second")])

        def deserialize(self, in_band, oob):
            return Opaque()

    private = serreg.Registry()
    private.register_serializer("tests.cli.Opaque", Opaque, OpaqueSerializer())
    top = tmp_path / "top.srg"
    top.write_bytes(private.serialize(Opaque()).to_bytes())
    [frame] = _inspect_json(capsys, top)["frames"]
    assert frame["value"]["buffers"] == [0, 1] and frame["unattributed_from"] is None
    assert [b["owner"] for b in frame["buffers"]] == [class_id_hash("tests.cli.Opaque").hex()] * 2

    class Marker:
        pass

    class MarkerSerializer(serreg.Serializer):
        def serialize(self, obj):
            return serreg.SerializationResult(b"m")

        def deserialize(self, in_band, oob):
            return Marker()

    private.register_serializer("tests.cli.Marker", Marker, MarkerSerializer())
    path = tmp_path / "nested.srg"
    # Nothing is left for a nested unknown value to own after the last buffer: still attributed.
    path.write_bytes(private.serialize([bytearray(b"ab"), Marker()]).to_bytes())
    [frame] = _inspect_json(capsys, path)["frames"]
    assert frame["unattributed_from"] is None
    assert [item["buffers"] for item in frame["value"]["value"]] == [[0], []]
    # Before a buffer, a nested unknown value might own it: attribution stops there.
    path.write_bytes(private.serialize([Marker(), bytearray(b"ab")]).to_bytes())
    [frame] = _inspect_json(capsys, path)["frames"]
    assert frame["unattributed_from"] == 0
    assert [item["buffers"] for item in frame["value"]["value"]] == [None, None]
    assert frame["buffers"][0]["owner"] is None


def test_inspect_reads_every_golden_vector(capsys):
    from pathlib import Path

    names = inspection.class_names(serreg.default_registry())
    vectors = Path(__file__).parent / "vectors"
    frames = sorted([*vectors.glob("*/*.frame"), *vectors.glob("*/*.srg")])
    assert len(frames) > 50
    retired = vectors / "signed" / "signed_list_v1.frame"  # signed frames v1: refused by every reader
    with pytest.raises(serreg.SignatureError, match="retired"):
        list(inspection.inspect_frames(retired.read_bytes(), names))
    for path in frames:
        if path == retired:
            continue
        [report] = inspection.inspect_frames(path.read_bytes(), names)
        assert report.length == path.stat().st_size
        if report.unattributed_from is None:
            assert all(buffer.owner for buffer in report.buffers), path.name


def test_inspect_imports_modules_that_register_serializers(tmp_path, capsys):
    from cluster_types import CLASS_ID, Pixels

    path = tmp_path / "pixels.srg"
    path.write_bytes(serreg.serialize(Pixels("p", np.zeros(4))).to_bytes())
    [frame] = _inspect_json(capsys, path, "--import", "cluster_types")["frames"]
    assert frame["value"]["class_id"] == CLASS_ID


def test_inspect_text_shows_the_tree(tmp_path, capsys):
    value = {"name": "run-7", "weights": np.ones((4, 5)), "tags": ("a", "b"), "rows": [{"k": {1, 2}}]}
    path = tmp_path / "value.srg"
    data = serreg.serialize(value).to_bytes()
    path.write_bytes(data)
    assert cli.main(["inspect", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"frame: {len(data):,} bytes, format version 1"
    assert lines[2] == "out-of-band buffers: 1"
    [offset] = serreg.FrameView(data).buffer_offsets
    largest_power_of_two = max(2**k for k in range(13) if offset % 2**k == 0)
    assert lines[3].split() == ["#0", "offset", str(offset), "length", "160", "alignment", str(largest_power_of_two),
                                "numpy.ndarray"]
    tree = "\n".join(lines[lines.index("value:") + 1:])
    assert "dict [6ab47d70854a8c69]" in tree
    assert '"name": "run-7"' in tree
    assert 'numpy.ndarray [3ef346082463cfb6] in-band 10 B, buffer #0 = ["<f8", [4, 5], "C"]' in tree
    assert 'tuple [fb2c3dcbe52aa287] in-band 5 B = ["a", "b"]' in tree
    assert "set [6ee0eb490ff83210] in-band 3 B = [1, 2]" in tree
