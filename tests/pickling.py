"""Registries for the tests that pin the pickle fallback's own frames.

Plain objects (dataclasses, ordinary instances) that the fallback would pickle
whole are written as implicit structs by default (docs/FORMAT.md 10.9); the
fallback's tests turn that off to keep looking at pickles
(``test_implicit_structs.py`` covers the implicit structs).
"""

from __future__ import annotations

from typing import Any

import serreg


def pickling_registry(**options: Any) -> serreg.Registry:
    """A Registry that pickles plain objects (no implicit structs)."""
    registry = serreg.Registry(**options)
    registry.configure_fallback(implicit_structs=False)
    return registry
