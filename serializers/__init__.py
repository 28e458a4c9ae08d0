"""serreg's built-in plug-in serializers for third-party libraries, one module per library.

Each module has a ``register(registry)`` function published in the
``serreg.serializers`` entry-point group (see pyproject.toml), exactly as a
third-party package would publish its own; serreg's core never imports them.
"""
