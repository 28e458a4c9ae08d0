"""Integrations with cluster frameworks, one module per framework.

``serreg.integrations.dask`` and ``serreg.integrations.ray`` import their
framework; serreg's core never imports them.
"""
