"""A garbage collection never crashes over the buffers of a serialized value.

The pickle fallback's out-of-band buffers once were ``PickleBuffer(view).raw()``:
each held a buffer export of a serializer's memoryview. Kept in a garbage cycle
(a result, or a caught error whose traceback holds the frame that holds the
result), the collector could clear the memoryview first and crash the process
when releasing the export. Each scenario runs in a child process, so a crash is
a failed test, with both backends.
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from gc_child import assert_collects

import serreg


@dataclasses.dataclass
class Row:
    name: str
    value: Any


_PRELUDE = """
import dataclasses, gc, pickle
from typing import Any
import numpy as np
import pyarrow as pa
import serreg
from serreg.errors import LimitExceededError, UntrustedClassIDError

@dataclasses.dataclass
class Row:
    name: str
    value: Any

TABLE = pa.table({"x": list(range(1000)), "s": ["a", ""] * 500})
"""

_SCENARIOS = {
    "results_in_a_cycle": """
        registry = serreg.Registry()
        for _ in range(20):
            box = [registry.serialize(Row("t", TABLE))]
            box.append(box)
            del box
        gc.collect()
        """,
    "limit_errors_kept_with_their_tracebacks": """
        def budget(via):
            result = serreg.Registry().serialize(Row("t", TABLE))
            data = result if via else result.to_bytes()
            tight = serreg.Limits(memory_per_byte=0, memory_allowance=64)
            try:
                serreg.Registry(limits=tight).deserialize(data)
            except LimitExceededError as error:
                saved = error  # the traceback holds this frame, which holds the error: a cycle
            assert saved is not None
            try:
                serreg.Registry().deserialize(data, limits=tight)  # the long way: a limits= of the call
            except LimitExceededError as error:
                kept = error
            assert kept is not None

        for i in range(20):
            budget(i % 2 == 0)
        gc.collect()
        """,
    "untrusted_errors_kept_with_their_tracebacks": """
        def refuse(via):
            result = serreg.Registry().serialize(Row("t", TABLE))
            data = result if via else result.to_bytes()
            try:
                serreg.Registry(trusted=False).deserialize(data)
            except UntrustedClassIDError as error:
                saved = error
            assert saved is not None

        for i in range(20):
            refuse(i % 2 == 0)
        gc.collect()
        """,
    "fallback_buffers_of_numpy_views_and_fortran_arrays": """
        registry = serreg.Registry()
        values = [Row("c", np.arange(12.0).reshape(3, 4)), Row("f", np.asfortranarray(np.arange(12).reshape(3, 4))),
                  Row("v", memoryview(np.arange(6, dtype=">i4")))]
        for _ in range(10):
            result = registry.serialize(values)
            box = [result, [memoryview(b) for b in result.out_of_band_buffers]]
            box.append(box)
            back = registry.deserialize(result.to_bytes())
            assert np.array_equal(back[0].value, values[0].value) and np.array_equal(back[1].value, values[1].value)
            assert bytes(back[2].value) == values[2].value.tobytes()
            del box, result
        gc.collect()
        """,
}


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("scenario", sorted(_SCENARIOS))
def test_collecting_kept_values_and_errors_does_not_crash(scenario: str, pure: bool) -> None:
    code = _PRELUDE + textwrap.dedent(_SCENARIOS[scenario]) + "\nprint('collected')\n"
    assert_collects(scenario, code, pure)


def test_fallback_buffers_hold_no_export_of_a_memoryview() -> None:
    # What the crash needed: an out-of-band view whose exporter is a memoryview (a buffer export of it).
    registry = serreg.Registry()
    values = [Row("t", pa.table({"x": list(range(100))})), Row("f", np.asfortranarray(np.arange(12).reshape(3, 4))),
              Row("v", memoryview(np.arange(6, dtype=">i4")))]
    result = registry.serialize(values)
    assert len(result.out_of_band_buffers) >= 3
    exporters = [type(memoryview(b).obj).__name__ for b in result.out_of_band_buffers]
    assert "memoryview" not in exporters, exporters
    assert all(memoryview(b).format == "B" and memoryview(b).ndim == 1 for b in result.out_of_band_buffers)
