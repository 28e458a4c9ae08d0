"""``serreg inspect``: what it reads and how it fails: consecutive frames from standard input; a bad
file, a missing file or a bad import reported in one line, without a traceback."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest

import serreg
from serreg import cli
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import frame_pieces


def _frame(in_band_parts, buffers=()) -> bytes:
    return b"".join(frame_pieces(in_band_parts, [memoryview(b) for b in buffers])[0])



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
