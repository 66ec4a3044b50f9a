"""``memdir team resolve FILE --keep mine|theirs|both`` (or ``--edit``): settle a conflict copy, then sync."""

from __future__ import annotations

import json

import click

from memdir.cli.team_client import client_options, report_sync, team_session
from memdir.cli.terminal import say
from memdir.errors import MemdirError
from memdir.team import sync as sync_ops
from memdir.team.resolve import Keep, Pending, conflict_pair, resolve_conflict
from memdir.team.state import SyncState

__all__ = ["resolve_command"]

_MARK_MINE = "<<<<<<< yours"
_MARK_SPLIT = "======="
_MARK_THEIRS = ">>>>>>> the server's"


def _merge_template(pending: Pending) -> str:
    from memdir.model.conflicts import unmark_conflict_copy

    return (
        f"{_MARK_MINE} ({pending.copy})\n{unmark_conflict_copy(pending.mine).rstrip()}\n{_MARK_SPLIT}\n"
        f"{(pending.theirs or '').rstrip()}\n{_MARK_THEIRS} ({pending.original})\n"
    )


@click.command(
    "resolve",
    epilog="Examples:\n\n\b\n  memdir team resolve project_deploy_window.conflict-20261126T005331Z.md --keep mine\n"
    "  memdir team resolve project_deploy_window.md --keep both\n"
    "  memdir team resolve project_deploy_window.md --edit",
)
@click.argument("file")
@click.option(
    "--keep",
    type=click.Choice([k.value for k in (Keep.MINE, Keep.THEIRS, Keep.BOTH)]),
    help="mine: your copy replaces the memory; theirs: the memory stays; both: your copy becomes a memory of its own.",
)
@click.option("--edit", is_flag=True, help="Write the merged text yourself in $VISUAL or $EDITOR.")
@click.option("--no-push", is_flag=True, help="Resolve in team/ only; the next sync sends it.")
@client_options
def resolve_command(
    file: str,
    keep: str | None,
    edit: bool,
    no_push: bool,
    server: str | None,
    secret: str | None,
    repo: str | None,
    as_json: bool,
) -> None:
    """Resolve a conflict copy kept by team sync (FILE is the copy, or the memory it belongs to),
    then sync so the team gets the resolution. 'memdir team status' lists the conflict copies."""
    if (keep is None) == (not edit):
        raise click.UsageError("choose one: --keep mine, --keep theirs, --keep both, or --edit")
    with team_session(server, secret, repo, need_server=not no_push) as (client, team_dir):
        key = file.removeprefix("team/")
        try:
            pending = conflict_pair(team_dir, key)
            merged: str | None = None
            if edit:
                merged = click.edit(_merge_template(pending), extension=".md", require_save=True)
                if merged is None:
                    raise click.ClickException(f"nothing saved in the editor; {pending.copy} is left as it is")
                if any(line.startswith((_MARK_MINE, _MARK_THEIRS)) for line in merged.splitlines()):
                    raise click.ClickException(
                        f"the merged text still has conflict markers; {pending.copy} is left as it is"
                    )
            resolution = resolve_conflict(team_dir, pending.copy, Keep(keep) if keep else Keep.MERGED, merged)
        except MemdirError as exc:
            raise click.ClickException(exc.message) from exc
        report = None
        if client is not None:
            report = sync_ops.sync(client, SyncState(), team_dir)
    outcome = {"resolved": resolution.to_json(), "sync": report.to_json() if report else None}
    if as_json:
        click.echo(json.dumps(outcome, indent=2, ensure_ascii=False))
    else:
        kept = {"mine": "your version", "theirs": "the server's version", "both": "both versions"}
        choice = kept.get(resolution.keep.value, "your merged text")
        also = f" (the second as {resolution.written[0]})" if resolution.keep is Keep.BOTH else ""
        say(f"resolved {resolution.original}: kept {choice}{also}; removed {resolution.copy}", err=True)
        if report is not None:
            report_sync(report)
    if report is not None and report.failed():
        raise SystemExit(1)
