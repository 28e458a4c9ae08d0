"""The command line: ``serreg --help``, ``--version``, ``python -m serreg``, ``serreg demo`` and ``registry``.

``serreg inspect``: test_cli_inspect.py (what it shows) and test_cli_inspect_input.py (what it reads,
how it fails)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import serreg
from serreg import cli, standard
import serreg.codec
from serreg.wire.class_id import class_id_hash


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
