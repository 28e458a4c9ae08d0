"""``serreg inspect`` on hostile files: the decoder's limits, no hash flooding, no crash at any depth, one-line errors.

Issue 11, sections 1 and 3: "untrusted files are safe to inspect" must hold for
any file. The walk (serreg/inspection/walk.py) reads msgpack itself from an
explicit stack, keeps maps as pairs, and charges what it keeps against the
memory budget of serreg.Limits.
"""

import subprocess
import sys
import textwrap
import time

import msgpack
import numpy as np
import pytest

import serreg
from serreg import LimitExceededError, Limits, cli, inspection
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import frame_pieces


def frame(class_id: str, in_band: bytes, buffers=()) -> bytes:
    return b"".join(frame_pieces([class_id_hash(class_id), in_band], [memoryview(b) for b in buffers])[0])


def nested_tuples(levels: int) -> bytes:
    """A frame of tuple(tuple(...(None))) ``levels`` deep, built outside-in."""
    inner = class_id_hash("None") + b"\xc0"
    parts = []
    for k in range(levels, 0, -1):
        inner_length = len(inner) + 15 * (k - 1)
        parts.append(class_id_hash("tuple") + b"\x91\xc9" + inner_length.to_bytes(4, "big") + b"\x00")
    return serreg.SerializationResult(b"".join(parts) + inner).to_bytes()


def run_inspect(tmp_path, data: bytes, *options):
    """(exit status, stdout, stderr) of ``serreg inspect`` in a fresh process, so a crash shows as a signal."""
    path = tmp_path / "input.srg"
    path.write_bytes(data)
    completed = subprocess.run([sys.executable, "-m", "serreg", "inspect", str(path), *options],
                               capture_output=True, text=True, timeout=300)
    return completed.returncode, completed.stdout, completed.stderr


def assert_one_line_error(status, out, err, expected):
    assert status == 1, (status, err[-2000:])
    assert out == ""
    [line] = err.splitlines()
    assert line.startswith("serreg inspect: error: ") and expected in line, line


def test_arrays_nested_1000_deep_are_shown_and_1025_deep_refused(tmp_path):
    # c2967a7: a Python traceback (RecursionError) from the printer.
    deep = frame("list", b"\x91" * 999 + b"\xc0")
    status, out, err = run_inspect(tmp_path, deep)
    assert status == 0 and err == "", err[-2000:]
    assert "in-band 1,000 B = [[[[[[" in out and out.rstrip().endswith("…")  # cut at the line's width
    status, out, err = run_inspect(tmp_path, deep, "--json")
    assert status == 0 and err == "" and out.count("[") >= 1000, err[-2000:]
    assert_one_line_error(*run_inspect(tmp_path, frame("list", b"\x91" * 1025 + b"\xc0")), "nested more than 1024")


def test_values_nested_200_deep_stop_at_max_depth_without_a_crash(tmp_path):
    # c2967a7: every level was a msgpack call from the ext hook of the level above; 200 levels crashed.
    assert_one_line_error(*run_inspect(tmp_path, nested_tuples(200)), "max_depth=100")
    status, out, err = run_inspect(tmp_path, nested_tuples(99))
    assert status == 0 and out.count("tuple [") == 99, err[-2000:]


def test_the_deepest_file_inspect_accepts_is_walked_in_a_thread_with_a_256_kib_stack():
    script = textwrap.dedent(f"""
        import threading, serreg
        from serreg import inspection
        from serreg.wire.class_id import class_id_hash
        import test_inspect_hostile as t
        data = t.nested_tuples(99) + t.frame("list", b"\\x91" * 1023 + b"\\xc0")
        outcome = []
        def work():
            reports = list(inspection.inspect_frames(data, inspection.standard_class_names()))
            inspection.to_json(reports)
            "".join(inspection.iter_json(inspection.to_json(reports)))
            outcome.append(len(reports))
        threading.stack_size(256 * 1024)
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        print(outcome)
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                               cwd=str(__import__("pathlib").Path(__file__).parent))
    assert completed.returncode == 0 and completed.stdout.strip() == "[2]", completed.stderr[-2000:]


def test_a_float_where_an_arrow_buffer_count_belongs_is_a_one_line_error(tmp_path):
    in_band = msgpack.packb([b"schema", [[1, [[1, 0, 1.5]]]]])
    assert_one_line_error(*run_inspect(tmp_path, frame("ArrowTable", in_band)), "not [schema, batches]")


def test_a_tuple_whose_in_band_is_one_nested_value_is_shown(tmp_path):
    nested = msgpack.ExtType(0, class_id_hash("list") + msgpack.packb([1, 2]))
    status, out, err = run_inspect(tmp_path, frame("tuple", msgpack.packb(nested)))
    assert status == 0, err[-2000:]
    assert "tuple [" in out and "list [" in out and "[1, 2]" in out


def test_maps_with_colliding_tuple_keys_cost_what_ordinary_ones_do():
    # -1 and -2 have the same hash, so every tuple of 15 of them does: c2967a7 built a dict of
    # 20,000 such keys (about 330 KB) in about 10 s, quadratic in their number.
    colliding = [tuple(-1 - ((i >> bit) & 1) for bit in range(15)) for i in range(20_000)]
    ordinary = [tuple(i + bit for bit in range(15)) for i in range(20_000)]
    assert len({hash(k) for k in colliding}) == 1
    names = inspection.standard_class_names()
    timings = []
    for keys in (ordinary, colliding):  # packed by hand: building the dict here would take the 10 s
        data = frame("dict", b"\xde" + len(keys).to_bytes(2, "big") + b"".join(msgpack.packb(k) + b"\x00" for k in keys))
        started = time.perf_counter()
        [report] = inspection.inspect_frames(data, names)
        timings.append(time.perf_counter() - started)
        assert len(report.root.value) == 20_000
    # Keys are never hashed: the same work either way (a generous factor for a busy machine).
    assert timings[1] < 3 * timings[0] + 0.5, timings


def test_what_inspect_keeps_is_charged_to_the_decoders_memory_budget():
    data = serreg.serialize([[i] for i in range(10_000)]).to_bytes()
    names = inspection.standard_class_names()
    assert len(list(inspection.inspect_frames(data, names))[0].root.value) == 10_000
    with pytest.raises(LimitExceededError, match="memory_per_byte"):
        list(inspection.inspect_frames(data, names, Limits(memory_allowance=0, memory_per_byte=16)))
    with pytest.raises(LimitExceededError, match="max_depth=3"):
        list(inspection.inspect_frames(nested_tuples(5), names, Limits(max_depth=3)))


def test_lengths_declared_past_the_end_and_bad_bytes_are_one_line_errors(tmp_path):
    cases = {
        b"\xdd\xff\xff\xff\xff" + b"\x00" * 8: "more than the bytes left",
        b"\xdb\xff\xff\xff\xff": "are left",
        b"\xc1": "is not a msgpack type",
        b"\xa2\xff\xfe": "not UTF-8",
        b"\xd6\xff\x00\x00\x00\x00": "ext type -1 is not used",
        b"\x01\x02": "1 bytes after its value",
    }
    for in_band, expected in cases.items():
        assert_one_line_error(*run_inspect(tmp_path, frame("list", in_band)), expected)


def test_no_mutation_of_a_frame_gives_a_traceback(capsys, tmp_path):
    value = {"a": [1, 2.5, "x"], "t": (np.arange(3), b"raw", {1, 2}), "m": {(1, 2): None}}
    data = serreg.serialize(value).to_bytes()
    path = tmp_path / "mutated.srg"
    statuses = set()
    for position in range(len(data)):
        for mask in (0x01, 0x80):
            mutated = bytearray(data)
            mutated[position] ^= mask
            path.write_bytes(bytes(mutated))
            for options in ([], ["--json"]):
                status = cli.main(["inspect", str(path), *options])  # anything but a SerregError propagates
                captured = capsys.readouterr()
                statuses.add(status)
                if status:
                    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
    assert statuses == {0, 1}
