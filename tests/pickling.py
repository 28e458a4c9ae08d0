"""Registries for the tests that pin the pickle fallback's own frames.

Plain objects (dataclasses, ordinary instances) that the fallback would pickle
whole are written as implicit structs by default (docs/FORMAT.md 10.9); the
fallback's tests turn that off to keep looking at pickles
(``test_implicit_structs*.py`` cover the implicit structs).
"""

from __future__ import annotations

import sys
import types
from typing import Any

import serreg


def pickling_registry(**options: Any) -> serreg.Registry:
    """A Registry that pickles plain objects (no implicit structs)."""
    registry = serreg.Registry(**options)
    registry.configure_fallback(implicit_structs=False)
    return registry


def module_with_thing(name: str) -> types.ModuleType:
    """A module registered in ``sys.modules`` under ``name``, holding a dataclass ``Thing(v: int)``."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec("import dataclasses\n@dataclasses.dataclass\nclass Thing:\n    v: int\n", module.__dict__)  # noqa: S102
    return module
