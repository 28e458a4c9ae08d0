"""Third-party plug-ins through the ``serreg.serializers`` entry-point group.

A small plug-in package (tests/plugin_pkg, distribution ``shapes-demo``) is
pip-installed into the running environment for this module and uninstalled
afterwards. If a run is killed before that, the package stays installed but is
harmless: it only serves its own ``shapes_demo`` types.

Laziness is checked in fresh interpreters, where ``sys.modules`` shows exactly
what was imported when.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import serreg

PACKAGE = Path(__file__).resolve().parent / "plugin_pkg"
DISTRIBUTION = "shapes-demo"
PLUGIN_MODULE = "shapes_demo.serreg_serializers"


def _pip(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", *args, "--quiet", "--disable-pip-version-check"],
        check=True, timeout=300, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )


@pytest.fixture(scope="module")
def plugin_installed(tmp_path_factory):
    # Build from a copy, so the build leaves nothing behind in the source tree.
    source = tmp_path_factory.mktemp("plugin") / "plugin_pkg"
    shutil.copytree(PACKAGE, source)
    # pip builds it in an isolated environment (fetching setuptools) as for any user install.
    _pip("install", "--no-deps", str(source))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        _pip("uninstall", "--yes", DISTRIBUTION)
        for name in [m for m in sys.modules if m == "shapes_demo" or m.startswith("shapes_demo.")]:
            del sys.modules[name]
        importlib.invalidate_caches()


def _run(code: str, cwd: Path) -> str:
    """Run ``code`` in a fresh interpreter; return what it printed."""
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_plugin_loads_on_first_sight_of_its_type(plugin_installed, tmp_path):
    out = _run(
        f"""
        import sys
        import numpy as np
        import serreg
        import shapes_demo

        print("after import:", {PLUGIN_MODULE!r} in sys.modules)
        serreg.serialize(np.zeros(3))  # loads the numpy plug-in, not this one
        print("after an ndarray:", {PLUGIN_MODULE!r} in sys.modules)
        polygon = shapes_demo.Polygon("square", np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]))
        result = serreg.serialize(polygon)
        print("after a Polygon:", {PLUGIN_MODULE!r} in sys.modules)
        print("buffers:", [b.nbytes for b in result.out_of_band_buffers])
        print("round trip:", serreg.deserialize(result.to_bytes()) == polygon)
        [registration] = [r for r in serreg.default_registry().registrations() if r.cls is shapes_demo.Polygon]
        print("class ID:", registration.class_id)
        print("origin:", registration.origin)
        """,
        tmp_path,
    )
    assert out.splitlines() == [
        "after import: False",
        "after an ndarray: False",
        "after a Polygon: True",
        "buffers: [64]",
        "round trip: True",
        "class ID: shapes_demo.Polygon",
        f"origin: plug-in shapes_demo ({PLUGIN_MODULE}:register)",
    ]


def test_plugin_loads_on_first_sight_of_its_class_id(plugin_installed, tmp_path):
    frame = tmp_path / "polygons.srg"
    _run(
        f"""
        import numpy as np
        import serreg
        import shapes_demo

        polygon = shapes_demo.Polygon("triangle", np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
        with open({str(frame)!r}, "wb") as f:
            serreg.serialize({{"shapes": [polygon, polygon], "count": 2}}).write_to(f)
        """,
        tmp_path,
    )
    out = _run(
        f"""
        import sys
        import serreg

        print("before:", "shapes_demo" in sys.modules)
        value = serreg.deserialize(open({str(frame)!r}, "rb").read())
        print("after:", {PLUGIN_MODULE!r} in sys.modules)
        shapes = value["shapes"]
        print(type(shapes[0]).__module__, type(shapes[0]).__name__, shapes[0].label, shapes[0].points.tolist())
        print("equal:", shapes[0] == shapes[1], value["count"])
        """,
        tmp_path,
    )
    assert out.splitlines() == [
        "before: False",
        "after: True",
        "shapes_demo Polygon triangle [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]",
        "equal: True 2",
    ]


def test_each_registry_loads_the_plugin_for_itself(plugin_installed):
    import numpy as np
    import shapes_demo

    registry = serreg.Registry()
    polygon = shapes_demo.Polygon("line", np.array([[0.0, 0.0], [2.0, 2.0]]))
    value = {"polygon": polygon, "inside": (polygon,)}
    result = registry.serialize(value)
    assert [b.nbytes for b in result.out_of_band_buffers] == [32, 32]
    back = registry.deserialize(result.to_bytes())
    assert back["polygon"] == polygon and back["inside"][0] == polygon
    # In one process the points come back as the very memory that was sent.
    assert np.shares_memory(registry.deserialize(result)["polygon"].points, polygon.points)

    without_plugins = serreg.Registry(plugins=False)
    with pytest.raises(serreg.UnknownClassIDError):
        without_plugins.deserialize(result.to_bytes())


# ----------------------------------------------------------------- a library that is not installed

# Run first in a fresh interpreter: numpy and pyarrow cannot be imported, as after a plain
# ``pip install serreg`` (core dependencies only).
_WITHOUT_NUMPY_AND_ARROW = """
import sys

class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "pyarrow", "pandas"):  # (pandas needs numpy)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
"""


def test_plugins_of_missing_libraries_stay_quiet_and_frames_name_the_extra(tmp_path):
    import numpy as np
    import pyarrow as pa

    ndarray_frame = tmp_path / "ndarray.srg"
    ndarray_frame.write_bytes(serreg.serialize({"a": np.arange(3)}).to_bytes())
    table_frame = tmp_path / "table.srg"
    table_frame.write_bytes(serreg.serialize([pa.table({"x": [1, 2]})]).to_bytes())
    completed = subprocess.run(
        [sys.executable, "-c", _WITHOUT_NUMPY_AND_ARROW + textwrap.dedent(f"""
        import warnings
        import serreg

        warnings.simplefilter("always")
        caught = warnings.catch_warnings(record=True)
        recorded = caught.__enter__()
        registry = serreg.default_registry()
        print(serreg.deserialize(serreg.serialize({{"plain": [1, 2.5, b"x", (3,)]}}).to_bytes()))
        print(sorted(c for c in (r.class_id for r in registry.registrations()) if "numpy" in c or "Arrow" in c))
        for path in ({str(ndarray_frame)!r}, {str(table_frame)!r}):
            try:
                serreg.deserialize(open(path, "rb").read())
            except serreg.UnknownClassIDError as error:
                print(error)
        print(sorted(m for m in sys.modules if m.startswith(("numpy", "pyarrow"))))
        # Other plug-ins installed here (tests/plugin_pkg needs numpy) may warn; serreg's own must not.
        print([str(w.message) for w in recorded if "serreg.serializers" in str(w.message)])
        """)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == "{'plain': [1, 2.5, b'x', (3,)]}"
    assert lines[1] == "[]"  # neither plug-in registered anything
    assert "'numpy.ndarray' value" in lines[2] and "pip install 'serreg[numpy]'" in lines[2]
    assert "inside dict" in lines[2]
    assert "'ArrowTable' value" in lines[3] and "pip install 'serreg[arrow]'" in lines[3]
    assert lines[4] == "[]"
    assert lines[5] == "[]"  # no warning about serreg's numpy or pyarrow plug-in
