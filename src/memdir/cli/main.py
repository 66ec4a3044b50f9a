"""The root click group; every noun group registers itself here."""

from __future__ import annotations

import click

__all__ = ["cli", "main"]


@click.group()
def cli() -> None:
    """memdir: long-term memory for LLM agents."""


def main() -> None:
    cli()
