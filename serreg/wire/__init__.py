"""The container of docs/FORMAT.md: ClassIDHash, the contiguous frame and its signature.

Everything here reads and writes bytes exactly as the format lays them out,
and depends on nothing in serreg but :mod:`serreg.errors` and
:mod:`serreg.limits`: ``class_id`` (section 2), ``frame`` (section 4) and
``signing`` (section 4.2).
"""
