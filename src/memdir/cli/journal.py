"""``memdir log`` and ``memdir dream``: daily logs, and distilling them into memories."""

from __future__ import annotations

import sys

import click

from memdir.cli.main import CliState, cli, echo_json, fail, pass_state
from memdir.cli.terminal import is_terminal, progress
from memdir.journal.daily_log import append_log
from memdir.journal.dream import DreamReport
from memdir.model.text import counted

__all__ = ["dream", "log"]


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


def _print_report(report: DreamReport) -> None:
    if not report.ran:
        click.echo(report.reason, err=True)
        for session in report.sessions:
            click.echo(f"session {session}")
        for log_file in report.logs:
            click.echo(f"log {log_file}")
        return
    for file in report.improved:
        click.echo(f"improved {file}")
    for file in report.deleted:
        click.echo(f"deleted {file}")
    for file in report.index_files:
        click.echo(f"index {file}")
    if not (report.improved or report.deleted or report.index_files):
        click.echo("no files changed", err=True)
    click.echo(f"{report.reason} in {counted(report.turns, 'turn')}", err=True)
    if report.summary:
        click.echo(report.summary, err=True)


@cli.command(
    epilog="""\b
Examples:
  memdir dream --dry-run
  memdir dream --model anthropic:claude-sonnet-4-6
  memdir dream --force --json --model scripted:./dream-script.json
"""
)
@click.option("--model", "model_spec", default=None, help="Model spec (default: MEMDIR_MODEL or memdir.model).")
@click.option("--dry-run", is_flag=True, help="Show whether a dream is due and what it would read; no model call.")
@click.option("--force", is_flag=True, help="Dream now even if not due (the lock is still taken).")
@click.option("--session", "current_session", default=None, help="Id of the current session, not counted.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_state
def dream(
    state: CliState, model_spec: str | None, dry_run: bool, force: bool, current_session: str | None, as_json: bool
) -> None:
    """Distil daily logs and recent sessions into topic files and MEMORY.md.

    Without --force, runs only when due: 24 hours since the last consolidation and 5 sessions since
    (memdir.dreamMinHours, memdir.dreamMinSessions). Progress goes to stderr.
    """
    session = state.session(model_spec=model_spec)
    if not dry_run and session.model_spec is None:
        fail(
            "a dream needs a model and no model is configured: pass --model PROVIDER:MODEL, set "
            'MEMDIR_MODEL, or put "model" in the "memdir" object of your settings (see docs/models.md); '
            "--dry-run shows whether a dream is due without one"
        )
    with progress("dreaming (model turns)", minimum=1) as advance:
        bar = is_terminal(sys.stderr)

        def on_turn(turn: int, total: int) -> None:
            if bar:
                advance(turn, total)
            else:  # piped: one line per turn, as before
                click.echo(f"turn {turn}/{total}", err=True)

        report = session.dream(force=force, dry_run=dry_run, current_session=current_session, on_progress=on_turn)
    if as_json:
        echo_json(report.as_json())
    else:
        _print_report(report)
        if report.ran and state.config.memdir.agent_writes == "review":
            click.echo("memdir.agentWrites is review: its changes are proposals, not yet memories; see 'memdir review'")
