"""serreg's built-in plug-in serializers for third-party libraries, one module per library.

Each library module has a ``register(registry)`` function published in the
``serreg.serializers`` entry-point group (see pyproject.toml), exactly as a
third-party package would publish its own, and gives its canonical form
through its serializers' ``serialize_canonical`` hook; serreg's core never
imports them. A plug-in is loaded only where its library is installed
(``pip install "serreg[numpy]"``, ``"serreg[arrow]"``):

- ``numpy`` (``numpy_canonical``): numpy.ndarray and the numpy scalars;
- ``pyarrow`` (``pyarrow_canonical``, ``arrow_schema``): pyarrow.Table and
  pyarrow.RecordBatch.
"""

__all__: list[str] = []
