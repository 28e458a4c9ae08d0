"""A frame of implicit structs (docs/FORMAT.md 10.9) read by Java and TypeScript.

``serreg.pyobjects`` is Python only: Java and TypeScript treat it as any
top-level value of a class ID they do not know. Trusted, they keep it opaque
and write it back byte for byte (a Python reader then rebuilds the objects).
As for ``serreg.pickle5``, untrusted they refuse it by name before reading its
table, and TypeScript's ``crossLanguage: true`` refuses to write it.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess

import numpy as np
import pytest

import serreg
from java_fixture import JAR, JVM_ARGS
from test_typescript import ts_built  # noqa: F401  (module fixture: the built package)
from typescript_fixture import ECHO, JS_DIR, TypeScriptProcess


@dataclasses.dataclass
class Reading:
    sensor: str
    values: np.ndarray
    tags: list

    def __eq__(self, other: object) -> bool:
        return (type(other) is Reading and (other.sensor, other.tags) == (self.sensor, self.tags)
                and np.array_equal(other.values, self.values))


VALUE = {"readings": [Reading(f"s{i}", np.arange(4) * i, ["a"]) for i in range(3)], "n": 3}


def _frame() -> bytes:
    frame = serreg.serialize(VALUE).to_bytes()
    assert b"serreg.pyobject:" in frame
    return frame


def test_java_keeps_it_opaque_and_writes_it_back_byte_for_byte(java_echo):
    sent = _frame()
    reply = java_echo.round_trip(sent)
    assert bytes(reply) == sent
    assert serreg.deserialize(reply) == VALUE


def test_java_refuses_it_untrusted_naming_its_class_id(java_jar, tmp_path):
    # The fixture's mapped-echo loads a file untrusted, as MappedFrames.load does.
    serreg.dump(VALUE, tmp_path / "pyobjects.frame")
    assert b"serreg.pyobject:" in (tmp_path / "pyobjects.frame").read_bytes()
    proc = subprocess.run(["java", *JVM_ARGS, "-jar", str(JAR), "mapped-echo", str(tmp_path / "pyobjects.frame"),
                           str(tmp_path / "out.frame")], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "UntrustedClassIdException" in proc.stderr, proc.stderr[-2000:]
    assert "(class ID 'serreg.pyobjects')" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "out.frame").exists()


def test_typescript_keeps_it_opaque_trusted_and_refuses_it_untrusted_and_cross_language(ts_built):
    sent = _frame()
    process = TypeScriptProcess()
    try:
        reply = process.round_trip(sent)
    finally:
        assert process.close() == 0
    assert bytes(reply) == sent
    assert serreg.deserialize(reply) == VALUE
    index = (ECHO.parent.parent / "src" / "index.js").as_uri()
    script = (
        f"const m = await import({json.dumps(index)});"
        "const frame = new Uint8Array(Buffer.from(process.argv[1], 'hex'));"
        "try { m.deserialize(frame, { trusted: false }); console.log('read'); }"
        "catch (e) { console.log(e.name + ': ' + e.message); }"
        "try { m.serialize(m.deserialize(frame), { crossLanguage: true }); console.log('written'); }"
        "catch (e) { console.log(e.name + ': ' + e.message); }"
    )
    out = subprocess.run(["node", "--input-type=module", "-e", script, sent.hex()], cwd=JS_DIR,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    untrusted, cross_language = out.stdout.splitlines()
    assert untrusted.startswith("UntrustedClassIDError: ") and "(class ID 'serreg.pyobjects')" in untrusted, untrusted
    assert cross_language.startswith("CrossLanguageError: ") and "serreg.pyobjects" in cross_language, cross_language
