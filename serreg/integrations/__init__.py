"""Integrations with cluster frameworks, one module per framework.

``serreg.integrations.dask`` and ``serreg.integrations.ray`` import their
framework (``pip install "serreg[dask]"`` or ``"serreg[ray]"``); serreg's core
never imports them. ``common`` holds what they share.
"""

__all__: list[str] = []
