"""The ``memdir`` command line: the root group plus one module per noun group."""

from __future__ import annotations

from memdir.cli import agent as _agent  # noqa: F401
from memdir.cli import inspect, memories  # noqa: F401  (each module registers its commands)
from memdir.cli import instructions as _instructions  # noqa: F401
from memdir.cli import journal as _journal  # noqa: F401
from memdir.cli.main import cli, main
from memdir.cli.team import team

__all__ = ["cli", "main"]

cli.add_command(team)
