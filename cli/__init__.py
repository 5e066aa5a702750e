"""The ``slagwerk`` command line: :mod:`.app` builds the parser, one module per command.

A command's module holds its ``add_parser`` (the flags) and its ``run``;
:mod:`.options` and :mod:`.output` are what the commands share.
"""

from .app import COMMAND_MODULES, build_parser, entry, main

__all__ = ["COMMAND_MODULES", "build_parser", "entry", "main"]
