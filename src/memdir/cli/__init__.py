"""The ``memdir`` command line."""

from __future__ import annotations

from memdir.cli.main import cli, main

__all__ = ["cli", "main"]
