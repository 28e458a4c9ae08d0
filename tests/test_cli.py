"""The command line: ``serreg --help``, ``--version``, ``python -m serreg``, ``serreg demo``, ``inspect`` and ``registry``."""

from __future__ import annotations

import io
import os
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg import cli, inspection, standard
import serreg.codec
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import frame_pieces


def _frame(in_band_parts, buffers=()) -> bytes:
    return b"".join(frame_pieces(in_band_parts, [memoryview(b) for b in buffers])[0])


def _inspect_json(capsys, path, *options) -> dict:
    assert cli.main(["inspect", str(path), "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)


# ----------------------------------------------------------------- --help


def test_help_documents_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    names = [command.__name__.rpartition(".")[2] for command in cli.COMMANDS]
    assert {"demo", "inspect", "registry"} <= set(names)
    for name in names:
        assert f"\n    {name} " in text
    for name in names:
        with pytest.raises(SystemExit):
            cli.main([name, "--help"])
        assert f"usage: serreg {name}" in capsys.readouterr().out


def test_version_from_the_command_line_and_python_dash_m(capsys):
    import importlib.metadata

    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"serreg {serreg.__version__}"
    assert lines[1] == f"frame format version {serreg.FORMAT_VERSION}"
    assert lines[2].startswith(f"codec: {serreg.codec.BACKEND}")
    assert lines[3].startswith("Python 3.")
    assert serreg.__version__ == importlib.metadata.version("serreg")  # one place: serreg/_version.py
    completed = subprocess.run(
        [sys.executable, "-m", "serreg", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (completed.returncode, completed.stdout.splitlines()[:3]) == (0, lines[:3])
    forced = subprocess.run(
        [sys.executable, "-m", "serreg", "--version"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "SERREG_PURE_PYTHON": "1"},
    )
    assert forced.stdout.splitlines()[2] == "codec: pure Python (SERREG_PURE_PYTHON is set)"


# ----------------------------------------------------------------- demo


def test_demo_round_trips_an_ndarray_and_an_arrow_table_zero_copy(capsys):
    assert cli.main(["demo", "--rows", "2000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "equal after round trip: True" in lines
    assert "in-process ndarray zero-copy (shares memory): True" in lines
    assert "in-process Arrow table zero-copy (same buffers): True" in lines


def test_demo_without_numpy_and_pyarrow_uses_the_standard_types(tmp_path):
    # As after a plain ``pip install serreg``: numpy and pyarrow cannot be imported.
    code = textwrap.dedent("""
        import sys

        class NotInstalled:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in ("numpy", "pyarrow"):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, NotInstalled())
        from serreg.cli import main
        sys.exit(main(["demo", "--rows", "2000"]))
    """)
    completed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert "pip install 'serreg[arrow]'" in lines[0]
    assert "equal after round trip: True" in lines
    assert "in-process bytearray zero-copy (the same object back): True" in lines
    assert "in-process memoryview zero-copy (a view of the same memory): True" in lines
    assert any(line.endswith("memoryview from frame is a view of it: True; bytearray from frame: a copy (a bytearray "
                             "owns its memory)") for line in lines), lines


# ----------------------------------------------------------------- inspect


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


def test_inspect_reads_consecutive_frames_from_standard_input(monkeypatch, capsys):
    data = serreg.serialize([1, 2]).to_bytes() + serreg.serialize(bytearray(b"xyz")).to_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert cli.main(["inspect", "-", "--json"]) == 0
    frames = json.loads(capsys.readouterr().out)["frames"]
    assert [f["start"] for f in frames] == [0, 43]
    assert frames[1]["buffers"] == [{"index": 0, "offset": 64, "length": 3, "alignment": 64, "owner": "bytearray"}]


BAD_INPUTS = {
    "empty": (b"", "the input is empty"),
    "not a frame": (b"this is not a frame, just some text\n", "not a serreg frame: starts with b'this'"),
    "truncated": (serreg.serialize(np.zeros(100)).to_bytes()[:200], "frame header says the frame is"),
    "trailing bytes": (serreg.serialize(1).to_bytes() + b"junk", "frame 1 (starting at byte 41 of the input)"),
    "bad msgpack": (_frame([class_id_hash("dict"), b"\xc1"]), "the dict in-band is not valid msgpack"),
    "reserved ext type": (_frame([class_id_hash("list"), b"\x91\xd4\x05\x00"]), "msgpack ext type 5 is not used"),
    "missing buffer": (_frame([class_id_hash("bytearray"), b"\xc0"]), "takes out-of-band buffer 0, but the frame has 0"),
    "extra buffer": (_frame([class_id_hash("list"), b"\x90"], [b"abc"]), "holds 1 out-of-band buffers, but its values take 0"),
    "short nested section": (_frame([class_id_hash("list"), b"\x91\xd4\x00\x00"]), "cannot hold a ClassIDHash"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_inspect_reports_a_bad_file_in_one_line(case, tmp_path, capsys):
    data, expected = BAD_INPUTS[case]
    path = tmp_path / "bad.srg"
    path.write_bytes(data)
    assert cli.main(["inspect", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("serreg inspect: error: ") and expected in line


def test_inspect_of_a_missing_file_and_a_bad_import_fail_cleanly(tmp_path, capsys):
    assert cli.main(["inspect", str(tmp_path / "nothing.srg")]) == 1
    assert "No such file or directory" in capsys.readouterr().err
    path = tmp_path / "ok.srg"
    path.write_bytes(serreg.serialize(1).to_bytes())
    assert cli.main(["inspect", str(path), "--import", "no_such_module_here"]) == 1
    assert "could not import 'no_such_module_here'" in capsys.readouterr().err


def test_command_line_errors_have_no_traceback(tmp_path):
    path = tmp_path / "bad.srg"
    path.write_bytes(b"SREG" + bytes(40))
    completed = subprocess.run(
        [sys.executable, "-m", "serreg", "inspect", str(path)], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("serreg inspect: error: frame 0 (starting at byte 0 of the input): ")


def test_standard_class_id_table_covers_the_registries():
    core = {r.class_id for r in serreg.Registry(plugins=False).registrations()}
    assert core == standard.STANDARD_CLASS_IDS - set(standard.EXTRA_OF_CLASS_ID)
    everything = {r.class_id for r in serreg.Registry().registrations()}
    numpy_and_arrow = {c for c in everything if c.startswith(("numpy.", "Arrow", "pandas."))}
    assert numpy_and_arrow == set(standard.EXTRA_OF_CLASS_ID)
    assert everything == standard.STANDARD_CLASS_IDS


# ----------------------------------------------------------------- registry


def test_registry_lists_class_ids_hashes_types_and_origins(capsys):
    assert cli.main(["registry", "--json", "--import", "cluster_types"]) == 0
    rows = {row["class_id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["dict"] == {
        "class_id": "dict", "class_id_hash": "6ab47d70854a8c69", "type": "builtins.dict",
        "origin": "serreg (standard)", "python_only": False,
    }
    assert rows["ArrowTable"]["class_id_hash"] == "cc11f08d1d3a3138"
    assert rows["ArrowTable"]["type"] == "pyarrow.lib.Table"
    assert rows["ArrowTable"]["origin"] == "plug-in pyarrow (serreg.serializers.pyarrow:register)"
    assert rows["numpy.ndarray"]["origin"] == "plug-in numpy (serreg.serializers.numpy:register)"
    assert rows["serreg.pickle5"]["origin"] == "serreg (fallback)" and rows["serreg.pickle5"]["python_only"]
    assert rows["tests.Pixels"]["type"] == "cluster_types.Pixels" and rows["tests.Pixels"]["origin"] == "user"
    for row in rows.values():
        assert row["class_id_hash"] == class_id_hash(row["class_id"]).hex()


def test_registry_table(capsys):
    assert cli.main(["registry"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["CLASS", "ID", "CLASSIDHASH", "TYPE", "ORIGIN"]
    dict_row = next(line for line in lines if line.startswith("dict "))
    assert dict_row.split() == ["dict", "6ab47d70854a8c69", "builtins.dict", "serreg", "(standard)"]
