"""The ``memdir`` command line: the root group plus one module per noun group."""

from __future__ import annotations

from memdir.cli import index, inspect, memories  # noqa: F401  (each module registers its commands)
from memdir.cli.main import cli, main

__all__ = ["cli", "main"]
