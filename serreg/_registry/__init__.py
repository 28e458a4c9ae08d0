"""The parts behind :class:`serreg.Registry` (registry.py is their public facade).

``table`` holds the registrations and publishes them as immutable snapshots;
``dispatch`` finds the registration for a value, a ClassIDHash or a class ID
(the lookup precedence); ``encode`` and ``decode`` run values through their
serializers; ``plugins`` loads the ``serreg.serializers`` entry points;
``paths`` says where a failing value sits inside the object given.
"""
