"""The ``serreg`` command line (``serreg``, ``python -m serreg``): one module per sub-command.

``main`` (in ``main.py``) builds the parser from the commands ``demo``,
``inspect``, ``registry`` and ``bench``, each a module with
``add_parser(commands)`` and ``run(args)``; ``common`` holds what they share, ``inspect_text``
the text ``inspect`` prints.
"""

from __future__ import annotations

from .main import COMMANDS, build_parser, main

__all__ = ["COMMANDS", "build_parser", "main"]
