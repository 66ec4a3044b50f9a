"""The ``memdir`` command line: the root group plus one module per noun group.

Importing a command module registers its commands on the root group; the root group imports the
module of the command being run, and no other (see :data:`memdir.cli.main.COMMAND_MODULES`).
"""

from __future__ import annotations

from memdir.cli.main import cli, main

__all__ = ["cli", "main"]
