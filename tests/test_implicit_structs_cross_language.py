"""A frame of implicit structs (docs/FORMAT.md 10.9) read by Java and TypeScript.

``serreg.pyobjects`` is Python only: Java and TypeScript treat it as any
top-level value of a class ID they do not know. Trusted, they keep it opaque
and write it back byte for byte (a Python reader then rebuilds the objects);
untrusted, TypeScript refuses it before reading its table.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess

import numpy as np
import pytest

import serreg
from typescript_fixture import ECHO, JS_DIR, TypeScriptBuildError, TypeScriptProcess, build, tools_missing


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


@pytest.fixture(scope="module")
def ts_built():
    reason = tools_missing()
    if reason is not None:
        pytest.skip(reason)
    try:
        build()
    except TypeScriptBuildError as error:
        pytest.fail(str(error), pytrace=False)


def test_typescript_keeps_it_opaque_trusted_and_refuses_it_untrusted(ts_built):
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
        "const frame = Buffer.from(process.argv[1], 'hex');"
        "try { m.deserialize(new Uint8Array(frame), { trusted: false }); console.log('read'); }"
        "catch (e) { console.log(e.name + ': ' + e.message); }"
    )
    out = subprocess.run(["node", "--input-type=module", "-e", script, sent.hex()], cwd=JS_DIR,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("UntrustedClassIdError") or "untrusted" in out.stdout.lower(), out.stdout
