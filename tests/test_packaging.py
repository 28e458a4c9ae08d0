"""What a user installs: the sdist and wheel built from this tree, their contents and metadata,
and the wheel installed into a fresh virtual environment where a smoke test runs.

The editable install the suite runs under maps the whole source tree, so it
cannot show what a built wheel would leave out. The sdist and the wheel are
built here the way a release is (``python -m build``: an isolated build,
fetching setuptools as any install does, the wheel built from the sdist) from
a copy of the files git tracks, as a fresh clone holds them. The wheel is then installed with pip, without
``-e``, into a new virtual environment that sees the dependencies already
installed here but not serreg, and tests/wheel_smoke.py runs there: every
module, a round trip, the command line, Dask and Ray on local clusters.
"""

from __future__ import annotations

import email.parser
import os
import shutil
import site
import subprocess
import sys
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "serreg"
SMOKE = Path(__file__).resolve().parent / "wheel_smoke.py"


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The directory holding the sdist and the wheel built from it."""
    pytest.importorskip("build", reason="python -m build is not installed (it comes with serreg[test])")
    tree = tmp_path_factory.mktemp("source")
    tracked = _tracked_files()
    if tracked:  # what a fresh clone holds, as a release builds it (MANIFEST.in and setuptools' own defaults apply)
        for name in tracked:
            if (ROOT / name).is_file():
                (tree / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, tree / name)
    else:  # not a git checkout (an unpacked sdist): its build files and the package
        for name in ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in"):
            shutil.copy2(ROOT / name, tree / name)
        shutil.copytree(SOURCE, tree / "serreg", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    out = tmp_path_factory.mktemp("dist")
    completed = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(tree)],
        capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stdout[-5000:] + completed.stderr[-5000:]
    return out


# The build reads the files git tracks, as a release from a fresh clone would: a new file must be added first.
_UNTRACKED_HINT = "missing from the build: is it tracked (git add)? The build copies only the files git tracks"


def _tracked_files() -> list[str]:
    """The files git tracks in this checkout (an empty list outside one, or without git)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60)
    except OSError:
        return []
    if listed.returncode != 0:
        return []
    return [name for name in listed.stdout.decode().split("\0") if name]


@pytest.fixture(scope="module")
def wheel(dist) -> Path:
    (built,) = dist.glob("serreg-*.whl")
    return built


@pytest.fixture(scope="module")
def sdist(dist) -> Path:
    (built,) = dist.glob("serreg-*.tar.gz")
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
        "serreg/codec/_scan.pyi",
        "serreg/codec/_core.pyi",
        "serreg/wire/_frame.pyi",
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
    assert sources <= set(names), (sorted(sources - set(names)), _UNTRACKED_HINT)


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


def test_the_sdist_holds_the_package_the_build_files_and_the_compiled_codec_source(sdist):
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for required in ("pyproject.toml", "setup.py", "README.md", "serreg/py.typed", "serreg/codec/_scan.c",
                     "serreg/integrations/dask.py", "serreg/serializers/numpy.py"):
        assert required in names, required
    sources = {p.relative_to(ROOT).as_posix() for p in SOURCE.rglob("*.py") if "__pycache__" not in p.parts}
    assert sources <= names, (sorted(sources - names), _UNTRACKED_HINT)
    # Every C source and header the compiled parts include (setup.py lists the headers as depends):
    # without one, the wheel built from this sdist would quietly lack the compiled codec.
    c_sources = {p.relative_to(ROOT).as_posix() for pattern in ("*.c", "*.h") for p in SOURCE.rglob(pattern)}
    assert c_sources <= names, sorted(c_sources - names)
    assert not any(name.startswith(("tests/", "benchmarks/", "java-compat/", "js-compat/", "fuzz/")) for name in names)


def test_the_sdist_holds_every_tracked_file_of_the_package_and_of_its_build(sdist):
    tracked = _tracked_files()
    if not tracked:
        pytest.skip("not a git checkout: no list of tracked files to compare the sdist with")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    needed = {name for name in tracked if name.startswith("serreg/")} | {"pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"}
    assert needed <= names, f"tracked but not in the sdist (MANIFEST.in or package-data): {sorted(needed - names)}"
    outside = {name for name in names & set(tracked) if not name.startswith("serreg/")} - needed
    assert not outside, f"in the sdist though no build reads them: {sorted(outside)}"


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="no C compiler: the wheel is pure Python")
def test_the_wheel_built_from_the_sdist_holds_every_compiled_part(wheel):
    # The extensions are optional (a build without a compiler falls back, warning at import): a header missing
    # from the sdist would make a wheel without them, silently, so their presence is checked here.
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    for module in ("serreg/codec/_core", "serreg/codec/_scan", "serreg/wire/_frame", "serreg/implicit/_walk"):
        assert any(name.startswith(module + ".") and name.endswith((".so", ".pyd")) for name in names), module


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed by pip (no -e); returns its directory.

    The environment sees this interpreter's site-packages through a .pth file,
    so the dependencies need no download; the .pth files there (an editable
    serreg's among them) are not run, and the environment's own site-packages,
    where the wheel goes, comes first.
    """
    env = tmp_path_factory.mktemp("env") / "venv"
    venv.EnvBuilder(with_pip=True, symlinks=os.name != "nt").create(env)
    python = _env_python(env)
    site_packages = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()
    parents = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    Path(site_packages, "serreg_test_parent.pth").write_text("\n".join(p for p in parents if os.path.isdir(p)) + "\n")
    completed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--no-deps", "--ignore-installed",
         "--disable-pip-version-check", "--quiet", str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return env


def _env_python(env: Path) -> Path:
    return env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _env_script(env: Path, name: str) -> Path:
    return env / ("Scripts" if os.name == "nt" else "bin") / (name + (".exe" if os.name == "nt" else ""))


def test_the_installed_wheel_passes_the_smoke_test(installed, tmp_path):
    python = _env_python(installed)
    completed = subprocess.run(
        [str(python), str(SMOKE), str(installed)], cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr[-8000:]
    lines = completed.stdout.splitlines()
    assert "round trip: ok" in lines
    for integration, library in (("dask", "distributed"), ("ray", "ray")):
        if _importable(library):
            assert f"{integration}: ok" in lines, completed.stdout
        else:
            assert any(line.startswith(f"{integration}: skipped") for line in lines), completed.stdout


def test_the_installed_wheel_brings_its_dependencies_and_its_command(installed, tmp_path):
    python = _env_python(installed)
    check = textwrap.dedent(f"""
        import importlib.metadata, re, sys
        import serreg
        dist = importlib.metadata.distribution("serreg")
        assert str(dist.locate_file("serreg/__init__.py")).startswith({str(installed)!r}), dist.locate_file("")
        core = [r for r in dist.requires if "extra ==" not in r]
        for requirement in core:
            __import__(re.split(r"[<>=! ;\\[]", requirement)[0])
        print(dist.version, len(core))
    """)
    completed = subprocess.run([str(python), "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    version = completed.stdout.split()[0]
    command = subprocess.run([str(_env_script(installed, "serreg")), "--version"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
    assert command.returncode == 0 and command.stdout.splitlines()[0] == f"serreg {version}", command
    registry = subprocess.run([str(python), "-m", "serreg", "registry"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
    assert registry.returncode == 0 and "serreg.pickle5" in registry.stdout, registry.stderr


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True
