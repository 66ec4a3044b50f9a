"""``memdir history | diff | restore | undo``: every version of every memory, and taking changes back.

The history itself is :mod:`memdir.store.history` (kept under the config home, docs/history.md);
these commands only read it and write through the store, so a restore or an undo is itself a new
version, recorded as ``cli``.
"""

from __future__ import annotations

import os
import sys

import click

from memdir.cli.listing import complete_memory_file
from memdir.cli.main import CliState, cli, echo_json, fail, pass_state
from memdir.cli.terminal import print_table
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.text import counted
from memdir.store.history_ops import HistoryView
from memdir.store.history_records import Run, Version, iso_time

__all__ = ["diff", "history", "restore", "undo"]


def view_of(state: CliState) -> HistoryView:
    """The directory's history, or a clear failure when none is kept."""
    found = state.memory_dir.history
    if found is None:
        fail(
            f"no history is kept for {state.memory_dir.root}: the settings key memdir.history is false "
            "(set it to true to record every change from now on)"
        )
        raise AssertionError("unreachable")
    return found


def _size(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"


def _change(row: Version) -> str:
    if row.change == "rename" and row.other:
        return f"rename {'from' if row.hash is not None else 'to'} {row.other}"
    if row.change == "undo" and row.hash is None:
        return "undo (removed)"
    return row.change


@cli.command(
    epilog="""\b
Examples:
  memdir history
  memdir history feedback_testing.md --json
  memdir history --runs
  memdir history prune --keep-days 90
"""
)
@click.argument("file", required=False, shell_complete=complete_memory_file)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--runs", is_flag=True, help="List runs (one command or agent run each) instead of changes.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Show at most this many (newest first).")
@click.option("--keep-days", type=click.FloatRange(min=0), default=None, help="With 'prune': forget versions older.")
@click.option(
    "--keep-versions", type=click.IntRange(min=1), default=None, help="With 'prune': keep this many per file."
)
@click.option(
    "--by",
    type=click.Choice(["codex", "gemini"]),
    default=None,
    help="With 'sync': record what changed as this coding agent's (its end-of-turn hook), not 'external'.",
)
@pass_state
def history(
    state: CliState,
    file: str | None,
    as_json: bool,
    runs: bool,
    limit: int | None,
    keep_days: float | None,
    keep_versions: int | None,
    by: str | None,
) -> None:
    """Every change to this memory directory, newest first: who made it (by), when, and how.

    With FILE, the versions of that file. 'memdir history prune --keep-days D | --keep-versions N'
    forgets old versions (the newest of each file is always kept); 'memdir history sync' records
    what others changed since memdir last looked (every command does so before its first change).
    """
    view = view_of(state)
    if file == "sync":
        click.echo(f"recorded {counted(view.sync(by=by), 'outside change')}" + (f" as {by}'s" if by else ""))
        return
    if by is not None:
        fail("--by goes with 'memdir history sync'", code=2)
    if file == "prune":
        if (keep_days is None) == (keep_versions is None):
            fail("history prune needs one of --keep-days D or --keep-versions N", code=2)
        before = view.db.size_bytes()
        versions, blobs = view.prune(keep_days=keep_days, keep_versions=keep_versions)
        click.echo(
            f"pruned {counted(versions, 'version')} and {counted(blobs, 'stored content')}; history {_size(before)} -> "
            f"{_size(view.db.size_bytes())}"
        )
        return
    if keep_days is not None or keep_versions is not None:
        fail("--keep-days and --keep-versions go with 'memdir history prune'", code=2)
    if runs:
        _print_runs(view.runs(limit=limit), as_json)
        return
    if file is not None:
        file = view.find(file)
    rows = view.versions(file, limit=limit)
    if as_json:
        echo_json([row.as_json() for row in rows])
        return
    if not rows:
        click.echo(f"no recorded changes{' of ' + file if file else ''} in {state.memory_dir.root}", err=True)
        return
    print_table(
        f"{counted(len(rows), 'change')} in {state.memory_dir.root}, newest first",
        ("at", "file", "version", "change", "by", "size", "run"),
        [(iso_time(r.at), r.file, f"v{r.version}", _change(r), r.by, _size(r.size), r.run) for r in rows],
        lambda row: "  ".join(row),
    )


def _print_runs(runs: list[Run], as_json: bool) -> None:
    if as_json:
        echo_json([run.as_json() for run in runs])
        return
    if not runs:
        click.echo("no recorded runs", err=True)
        return

    def files(run: Run) -> str:
        shown = ", ".join(run.files[:4])
        return shown + (f" (+{len(run.files) - 4} more)" if len(run.files) > 4 else "")

    print_table(
        f"{counted(len(runs), 'run')}, newest first",
        ("run", "at", "by", "command", "changes", "files", "undone"),
        [
            (
                r.id,
                iso_time(r.started),
                r.by,
                r.label,
                str(r.changes),
                files(r),
                f"undone by {r.undone_by}" if r.undone_by else "",
            )
            for r in runs
        ],
        lambda row: "  ".join(part for part in row if part),
    )


@cli.command(
    epilog="""\b
Examples:
  memdir diff feedback_testing.md
  memdir diff feedback_testing.md --from 1 --to 3
"""
)
@click.argument("file", shell_complete=complete_memory_file)
@click.option(
    "--from", "start", type=click.IntRange(min=0), default=None, help="Older version (default: the one before --to)."
)
@click.option("--to", "end", type=click.IntRange(min=1), default=None, help="Newer version (default: the latest).")
@pass_state
def diff(state: CliState, file: str, start: int | None, end: int | None) -> None:
    """A unified diff between two recorded versions of a file (by default, its last change)."""
    view = view_of(state)
    text = view.diff(view.find(file), start=start, end=end)
    if not text:
        click.echo("no difference", err=True)
        return
    click.echo(text, nl=False)


@cli.command(
    epilog="""\b
Examples:
  memdir restore feedback_testing.md            # a deleted memory, as it was when deleted
  memdir restore feedback_testing.md --version 2
"""
)
@click.argument("file", shell_complete=complete_memory_file)
@click.option(
    "--version",
    "number",
    type=click.IntRange(min=1),
    default=None,
    help="The version to bring back (default, for a deleted memory: its last version).",
)
@pass_state
def restore(state: CliState, file: str, number: int | None) -> None:
    """Put a file back as one of its versions left it (a deleted memory too), with its MEMORY.md line.

    The restore is itself a new version, so it can be undone.
    """
    view = view_of(state)
    rel = view.find(file)
    if number is None:
        number = view.deleted_version(rel)
        if number is None:
            fail(
                f"{rel} is not deleted: name the version to bring back, memdir restore {rel} --version N "
                f"(see 'memdir history {rel}')"
            )
            return
    row = view.restore(rel, number)
    click.echo(f"restored {row.file} as of version {number} (now version {row.version})")


@cli.command(
    epilog="""\b
Examples:
  memdir undo --last
  memdir history --runs
  memdir undo --run 3lp1sy-ad29
"""
)
@click.option("--last", "last", is_flag=True, help="Undo the most recent command or agent run.")
@click.option("--run", "run_id", default=None, metavar="ID", help="Undo this run (see 'memdir history --runs').")
@click.option("--force", is_flag=True, help="Also put back files changed again after the run.")
@pass_state
def undo(state: CliState, last: bool, run_id: str | None, force: bool) -> None:
    """Put back every file a run changed as it was before that run (MEMORY.md follows).

    A file changed again after the run is left alone and named, unless --force.
    """
    if last == (run_id is not None):
        fail("undo needs --last or --run ID (see 'memdir history --runs')", code=2)
    view = view_of(state)
    target = view.last_run() if last else None
    report = view.undo(target.id if target is not None else str(run_id), force=force)
    label = f" ({target.label}, by {target.by})" if target is not None and target.label else ""
    if report.restored:
        root = state.memory_dir
        memories = [rel for rel in report.restored if os.path.basename(rel) != ENTRYPOINT_NAME] or report.restored
        gone = [rel for rel in memories if not os.path.lexists(root.resolve(rel))]
        back = [rel for rel in memories if rel not in gone]
        done = [f"put back {', '.join(back)}"] if back else []
        done += [f"removed {', '.join(gone)} (not there before that run)"] if gone else []
        click.echo(f"undid run {report.run}{label}: {'; '.join(done)}")
    for later in report.conflicts:
        click.echo(
            f"memdir: left {later.file} alone: changed after that run ({later.change} by {later.by}, version "
            f"{later.version}); see 'memdir diff {later.file}', or undo with --force",
            err=True,
        )
    if not report.restored and not report.conflicts:
        click.echo(f"run {report.run} changed nothing that can be put back", err=True)
    if report.conflicts:
        sys.exit(1)
