"""One module per ``serreg`` sub-command, each with ``add_parser(commands)`` and ``run(args)``."""
