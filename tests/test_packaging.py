"""What a user installs: the wheel built from this tree, its contents, its metadata, and its imports.

The editable install the suite runs under maps the whole source tree, so it
cannot show what a built wheel would leave out. The wheel is built here the
way pip builds it for a user (an isolated build, fetching setuptools as any
install does) from a copy of the files a build reads, then opened as a zip.
"""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "serreg"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tree = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(SOURCE, tree / "serreg", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    out = tmp_path_factory.mktemp("wheel")
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
         "--wheel-dir", str(out), str(tree)],
        capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    (built,) = out.glob("serreg-*.whl")
    return built


def _metadata(archive: zipfile.ZipFile, name: str) -> str:
    (path,) = [n for n in archive.namelist() if n.endswith(f".dist-info/{name}")]
    return archive.read(path).decode()


def test_the_wheel_installs_only_serreg_and_all_of_it(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    top_level = {name.split("/")[0] for name in names}
    dist_info = {name for name in top_level if name.endswith(".dist-info")}
    assert top_level - dist_info == {"serreg"}  # no serializers, no benchmarks, nothing generic
    assert len(dist_info) == 1
    for required in (
        "serreg/py.typed",
        "serreg/integrations/dask.py",
        "serreg/integrations/ray.py",
        "serreg/serializers/numpy.py",
        "serreg/serializers/pyarrow.py",
        "serreg/serializers/arrow_schema.py",
        "serreg/_registry/table.py",
        "serreg/wire/frame.py",
    ):
        assert required in names, required
    # Every module of the source tree is in the wheel: no sub-package is ever left out.
    sources = {p.relative_to(ROOT).as_posix() for p in SOURCE.rglob("*.py") if "__pycache__" not in p.parts}
    assert sources <= set(names), sorted(sources - set(names))


def test_the_wheel_metadata_has_core_dependencies_extras_and_entry_points(wheel):
    with zipfile.ZipFile(wheel) as archive:
        metadata = email.parser.Parser().parsestr(_metadata(archive, "METADATA"))
        entry_points = _metadata(archive, "entry_points.txt")
    requires = metadata.get_all("Requires-Dist")
    core = sorted(r.split(">")[0].split("=")[0].strip() for r in requires if "extra ==" not in r)
    assert core == ["cloudpickle", "msgpack"]
    assert {"numpy", "arrow", "pandas", "dask", "ray", "bench", "all", "test"} <= set(metadata.get_all("Provides-Extra"))
    numpy_extra = [r for r in requires if r.startswith("numpy") and 'extra == "numpy"' in r]
    assert numpy_extra, requires
    assert "numpy = serreg.serializers.numpy:register" in entry_points
    assert "pyarrow = serreg.serializers.pyarrow:register" in entry_points
    assert "serreg = serreg.cli" in entry_points


def test_every_module_of_the_wheel_imports_from_the_wheel(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path)
        modules = sorted(
            name[: -len(".py")].replace("/", ".").removesuffix(".__init__")
            for name in archive.namelist() if name.endswith(".py")
        )
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(f"""
        import importlib, sys
        sys.path.insert(0, {str(tmp_path)!r})
        import serreg
        assert serreg.__file__.startswith({str(tmp_path)!r}), serreg.__file__
        for name in {modules!r}:
            importlib.import_module(name)
        import numpy as np
        value = {{"array": np.arange(4.0), "text": "wheel"}}
        back = serreg.deserialize(serreg.serialize(value).to_bytes())
        assert type(back["array"]).__module__ == "numpy" and back["text"] == "wheel"
        print(len({modules!r}), "modules")
        """)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == f"{len(modules)} modules"
