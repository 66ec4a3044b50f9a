"""``memdir log`` and ``memdir dream``: daily logs, and distilling them into memories."""

from __future__ import annotations

import sys

import click

from memdir.cli.main import CliState, cli, echo_json, pass_state
from memdir.journal.daily_log import append_log

__all__ = ["log"]


@cli.command(
    epilog="""\b
Examples:
  memdir log "User prefers squash merges; never rebase shared branches"
  git log -1 --format=%s | memdir log -
"""
)
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: path, file, line, created.")
@pass_state
def log(state: CliState, text: str, as_json: bool) -> None:
    """Append a timestamped bullet to today's daily log (logs/YYYY/MM/YYYY-MM-DD.md); '-' reads stdin."""
    entry = append_log(state.memory_dir, sys.stdin.read() if text == "-" else text)
    if as_json:
        echo_json({"path": entry.path, "file": entry.file, "line": entry.line, "created": entry.created})
        return
    click.echo(entry.path)
