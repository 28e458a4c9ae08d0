"""Frames in mapped files between Python and Java: each side reads the other's file in place, exactly.

Python dumps, Java maps the file, decodes it (saying whether every array and
Arrow column lies inside its mapping) and dumps it again through a mapping;
Python loads that file and compares. Java also writes values of its own.
"""

import os
import subprocess

import numpy as np
import pyarrow as pa
import pytest

import serreg
from java_fixture import JAR, JVM_ARGS
from test_mapped import inside, mappings_of


def java(*args):
    proc = subprocess.run(["java", *JVM_ARGS, "-jar", str(JAR), *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def sample(rows):
    return {
        "ints": np.arange(rows, dtype=np.int64),
        "grid": (np.arange(rows, dtype=np.float32) / 7).reshape(-1, 10),
        "table": pa.table({"n": pa.array(np.arange(rows, dtype=np.int64) * 3),
                           "x": pa.array(np.linspace(0, 1, rows)),
                           "s": pa.array([f"r{i}" for i in range(rows)])}),
        "label": "mapped",
    }


def test_python_dump_java_load_java_dump_python_load(java_jar, tmp_path):
    value = sample(100_000)
    serreg.dump(value, tmp_path / "py.frame")
    report = java("mapped-echo", tmp_path / "py.frame", tmp_path / "java.frame")
    assert sorted(report) == sorted([
        "value[ints] ndarray inside=true", "value[grid] ndarray inside=true",
        "value[table].n arrow inside=true", "value[table].x arrow inside=true", "value[table].s arrow inside=true",
    ])
    back = serreg.load(tmp_path / "java.frame")
    assert back.keys() == value.keys() and back["label"] == "mapped"
    for name in ("ints", "grid"):
        assert back[name].dtype == value[name].dtype and back[name].shape == value[name].shape
        assert back[name].tobytes() == value[name].tobytes()
    assert back["table"].equals(value["table"])


def test_a_python_shared_memory_region_is_read_in_place_by_java(java_jar, tmp_path, monkeypatch):
    monkeypatch.setenv(serreg.shm.DIRECTORY_VARIABLE, str(tmp_path / "regions"))
    value = sample(1000)
    with serreg.shm.put(value) as handle:
        report = java("mapped-echo", os.path.join(serreg.shm.directory(), handle.name), tmp_path / "java.frame")
    assert all(line.endswith("inside=true") for line in report) and len(report) == 5
    assert serreg.load(tmp_path / "java.frame")["table"].equals(value["table"])


def test_java_dump_python_load_in_place(java_jar, tmp_path):
    rows = 200_000
    java("mapped-produce", tmp_path / "java.frame", rows)
    back = serreg.load(tmp_path / "java.frame")
    ranges = mappings_of(tmp_path / "java.frame")
    ints, table = back["ints"], back["table"]
    assert ints.dtype == np.int64 and ints.tobytes() == np.arange(rows, dtype=np.int64).tobytes()
    assert inside(ints.ctypes.data, ints.nbytes, ranges) and not ints.flags.writeable
    assert table.column("n").to_numpy().tobytes() == (np.arange(rows, dtype=np.int64) * 3).tobytes()
    assert table.column("s").to_pylist() == [f"r{i}" for i in range(rows)]
    for chunk in table.column("n").chunks:
        assert inside(chunk.buffers()[1].address, chunk.buffers()[1].size, ranges)


def test_a_truncated_java_file_is_an_error(java_jar, tmp_path):
    java("mapped-produce", tmp_path / "java.frame", 1000)
    os.truncate(tmp_path / "java.frame", 500)
    with pytest.raises(serreg.DeserializationError, match="truncated"):
        serreg.load(tmp_path / "java.frame")


def test_java_loads_files_untrusted_by_default(java_jar, tmp_path):
    serreg.dump({"x": Exception("needs the pickle fallback")}, tmp_path / "pickled.frame")
    proc = subprocess.run(["java", *JVM_ARGS, "-jar", str(JAR), "mapped-echo", str(tmp_path / "pickled.frame"),
                           str(tmp_path / "out.frame")], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "UntrustedClassIdException" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "out.frame").exists()
