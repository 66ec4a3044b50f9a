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
    team,
    ui,
)
from memdir.cli.main import cli, main

__all__ = ["cli", "main"]
