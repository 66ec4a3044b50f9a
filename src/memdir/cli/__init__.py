"""The ``memdir`` command line: the root group plus one module per noun group."""

from __future__ import annotations

from memdir.cli import extract, inspect, memories  # noqa: F401  (each module registers its commands)
from memdir.cli.main import cli, main
from memdir.cli.team import team

__all__ = ["cli", "main"]

cli.add_command(team)
