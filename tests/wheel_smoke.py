"""Smoke test of an installed serreg, run by tests/test_packaging.py inside a fresh virtual environment.

``python wheel_smoke.py PREFIX`` checks that serreg is imported from under
PREFIX (the environment the wheel was installed into, not the source tree),
imports every module of the package, round-trips a value through a frame,
and runs the Dask and Ray integrations on real local clusters. It prints one
line per check; a library that is not installed is reported as ``skipped: ...``.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys


def check_origin(prefix: str) -> None:
    import serreg

    assert serreg.__file__.startswith(prefix), f"serreg imported from {serreg.__file__}, not from {prefix}"
    print("origin:", serreg.__file__)


def check_imports() -> None:
    import serreg

    optional = {"numpy", "pyarrow", "distributed", "dask", "ray", "matplotlib", "tqdm", "pyfory"}
    imported, skipped = [], []
    for module in pkgutil.walk_packages(serreg.__path__, "serreg."):
        try:
            importlib.import_module(module.name)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] not in optional:
                raise
            skipped.append(f"{module.name} ({error.name})")
        else:
            imported.append(module.name)
    for required in ("serreg.integrations.dask", "serreg.integrations.ray", "serreg.serializers.numpy",
                     "serreg.serializers.pyarrow", "serreg.cli", "serreg.bench"):
        assert required in imported or any(s.startswith(required + " ") for s in skipped), required
    print(f"imports: {len(imported)} modules" + (f"; skipped: {', '.join(skipped)}" if skipped else ""))


def check_round_trip() -> None:
    import numpy as np
    import pyarrow as pa

    import serreg

    value = {"array": np.arange(1000, dtype=np.int16), "table": pa.table({"x": [1, 2, 3]}), "text": ("a", 1.5)}
    back = serreg.deserialize(serreg.serialize(value).to_bytes())
    assert back["array"].dtype == np.int16 and back["array"].tolist() == list(range(1000))
    assert back["table"].equals(value["table"]) and back["text"] == ("a", 1.5)
    assert len(serreg.digest(value)) == 32
    print("round trip: ok")


def check_dask() -> None:
    try:
        from distributed import Client, LocalCluster
        from distributed.protocol import serialize
    except ModuleNotFoundError as error:
        print(f"dask: skipped: {error.name} is not installed")
        return
    import numpy as np

    from serreg.integrations.dask import SERIALIZERS, SerregPlugin, install

    install()
    array = np.arange(100_000, dtype=np.float64)
    header, _ = serialize(array, serializers=SERIALIZERS)
    assert header["serializer"] == "serreg", header
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster, serializers=SERIALIZERS, deserializers=SERIALIZERS) as client:
        client.register_plugin(SerregPlugin())
        [future] = client.scatter([array])
        assert client.submit(np.sum, future).result(timeout=120) == array.sum()
        assert client.submit(np.multiply, array, 2).result(timeout=120).tolist() == (array * 2).tolist()
        modules = client.run(lambda: sorted(m for m in sys.modules if m.startswith("serreg.integrations")))
        assert all("serreg.integrations.dask" in names for names in modules.values()), modules
    print("dask: ok")


def check_ray() -> None:
    try:
        import ray
    except ModuleNotFoundError as error:
        print(f"ray: skipped: {error.name} is not installed")
        return
    import numpy as np

    from serreg.integrations import ray as serreg_ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             runtime_env={"worker_process_setup_hook": "serreg.integrations.ray.install"})
    try:
        installed = serreg_ray.install()
        assert np.ndarray in serreg_ray.installed_classes(), installed

        @ray.remote
        def double(array):
            return array * 2

        array = np.arange(10_000, dtype=np.int32)
        assert ray.get(ray.put(array)).tolist() == array.tolist()
        assert ray.get(double.remote(array), timeout=120).tolist() == (array * 2).tolist()
    finally:
        ray.shutdown()
    print("ray: ok")


if __name__ == "__main__":
    check_origin(sys.argv[1])
    check_imports()
    check_round_trip()
    check_dask()
    check_ray()
