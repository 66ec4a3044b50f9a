"""The root click group; every noun group registers itself here."""

from __future__ import annotations

import click

from memdir.cli.team import team

__all__ = ["cli", "main"]


@click.group()
def cli() -> None:
    """memdir: long-term memory for LLM agents."""


cli.add_command(team)


def main() -> None:
    cli()
