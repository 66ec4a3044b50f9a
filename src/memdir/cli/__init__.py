"""The ``memdir`` command line: the root group plus one module per noun group.

Importing a command module registers its commands on the root group.
"""

from __future__ import annotations

from memdir.cli import (  # noqa: F401
    agent,
    extract,
    hooks,
    index,
    inspect,
    instructions,
    journal,
    mcp,
    memories,
    session,
)
from memdir.cli.main import cli, main
from memdir.cli.team import team

__all__ = ["cli", "main"]

cli.add_command(team)
