"""``memdir team pull | push | sync | status | log | show | restore | watch``: a clone's side of team sync."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from memdir.cli.extras import require_extra
from memdir.cli.terminal import is_terminal, print_table, progress, say, show_text
from memdir.config import watch_history
from memdir.errors import MemdirError
from memdir.model.text import counted
from memdir.team import pull as pull_ops
from memdir.team import push as push_ops
from memdir.team import sync as sync_ops
from memdir.team.client import TeamClient, resolve_endpoint
from memdir.team.protocol import validate_key
from memdir.team.resolve import pending_conflicts
from memdir.team.state import Conflict, PullResult, PushResult, SyncReport, SyncState
from memdir.team.view import MASS_DELETE_FILES, mass_delete_message

__all__ = ["CLIENT_COMMANDS"]

_SYNC_EXAMPLES = (
    "Examples:\n\n\b\n  export MEMDIR_TEAM_SERVER=https://memdir.example.com MEMDIR_TEAM_TOKEN=mdt_...\n"
    "  memdir team {name}\n  memdir team {name} --repo acme/widgets --json"
)


def client_options(command: Callable[..., None]) -> Callable[..., None]:
    for option in reversed(
        [
            click.option(
                "--server",
                help="Server base URL [env MEMDIR_TEAM_SERVER, TEAM_MEMORY_SYNC_URL; settings memdir.teamServer].",
            ),
            click.option("--token", "secret", help="Bearer token [env MEMDIR_TEAM_TOKEN]."),
            click.option("--repo", help="OWNER/NAME [default: from the git remote 'origin' of the project]."),
            click.option("--json", "as_json", is_flag=True, help="Print JSON."),
        ]
    ):
        command = option(command)
    return command


@contextmanager
def _session(server: str | None, secret: str | None, repo: str | None) -> Iterator[tuple[TeamClient, str]]:
    with team_session(server, secret, repo) as (client, team_dir):
        assert client is not None
        yield client, team_dir


@contextmanager
def team_session(
    server: str | None, secret: str | None, repo: str | None, *, need_server: bool = True
) -> Iterator[tuple[TeamClient | None, str]]:
    """A client for the configured server and the project's ``team/`` folder; without
    ``need_server``, no client (None) when no server is configured."""
    from memdir.cli.main import CliState

    state = click.get_current_context().find_object(CliState)
    assert state is not None
    config = state.config
    if not need_server and not (server or config.environment.team_server or config.memdir.team_server):
        yield None, config.team_dir
        return
    require_extra("memdir team", "team", "httpx")
    endpoint = resolve_endpoint(
        cwd=config.project_root,
        server=server,
        token=secret,
        repo=repo,
        settings_server=config.memdir.team_server,
        environment=config.environment,
    )
    watch_history(config)
    # Whatever a pull, a sync or a restore takes in from the server is recorded as the token that
    # wrote it (team/pull.py); what the person does here (team resolve) stays the command's own.
    with TeamClient(endpoint) as client:
        yield client, config.team_dir


def _report_push(result: PushResult, team_dir: str) -> None:
    for skip in result.skipped_secrets:
        say(f"skipped {skip.file}: potential secrets ({', '.join(skip.labels)}); not pushed", err=True)
    for other in result.skipped:
        say(f"skipped {other.file}: {other.reason} ({other.rule})", err=True)
    if result.capped:
        say(f"skipped {counted(result.capped, 'file')} beyond the server's entry limit", err=True)
    for key, why in result.not_pushed:
        say(f"not pushed {key}: {why}", err=True)
    for conflict in result.conflicts:
        say(f"restored {conflict.key} on the server: it was deleted there, but you had changed it", err=True)
    if result.held_deletions:
        count = len(result.held_deletions)
        say(
            mass_delete_message(count, count + result.unchanged + result.uploaded, "from the server"),
            err=True,
        )


def _report_pull(result: PullResult, sent: frozenset[str] = frozenset()) -> None:
    """One stderr line per key the pull touched or left; ``sent`` (keys the push of the same sync
    then sent) get no "not pushed yet" line, since they were."""
    for skip in result.skipped:
        if skip.rule == "changed-during-sync":
            say(f"kept {skip.file}: {skip.reason}", err=True)
        elif skip.rule != "local-not-synced":
            say(f"refused server key {skip.file!r}: {skip.reason} ({skip.rule})", err=True)
    for key in result.deleted:
        say(f"deleted {key}: deleted by a teammate", err=True)
    for key in result.merged:
        say(f"merged {key}: your edits and the server's touch different lines; both kept", err=True)
    for conflict in result.conflicts:
        say(_conflict_line(conflict), err=True)
    for key, why in result.kept_local:
        if key not in sent and not any(conflict.key == key for conflict in result.conflicts):
            say(f"kept {key}: {why}", err=True)
    if result.held_deletions:
        count = len(result.held_deletions)
        say(mass_delete_message(count, count + result.unchanged, "in team/"), err=True)
    for key, what in result.flagged:
        say(
            f"flagged {key}: it holds {what}, which reads as a prompt tag; kept, and shown to models with the "
            "brackets made harmless. Ask who wrote it (memdir team log)",
            err=True,
        )


def _conflict_line(conflict: Conflict) -> str:
    if conflict.kept_as != conflict.key:
        return (
            f"conflict {conflict.key}: {conflict.kind}; the server's version keeps the name, "
            f"yours is kept as {conflict.kept_as}"
        )
    if conflict.kind == "deleted here, changed there":
        return f"conflict {conflict.key}: you deleted it but it was changed on the server; the server's version is back"
    return f"conflict {conflict.key}: deleted on the server but changed here; your version is kept and pushed back"


_MASS_DELETE_OPTION = click.option(
    "--allow-mass-delete",
    is_flag=True,
    help=f"Propagate deletions of more than {MASS_DELETE_FILES} files or a quarter of team/ at once.",
)


def _exit_on(problems: list[str], as_json: bool) -> None:
    """A partial outcome exits 1, its reasons on stderr (also with --json, whose body has them)."""
    if not problems:
        return
    if as_json:
        for problem in problems:
            say(f"memdir: {problem}", err=True)
    raise SystemExit(1)


def report_sync(report: SyncReport) -> None:
    """A sync in words: a line per key on stderr, then one line per phase on stdout."""
    pushed = frozenset({*report.push.uploaded_keys, *report.push.deleted})
    _report_pull(report.pull, pushed)
    _report_push(report.push, "")
    for key in report.push.deleted:
        say(f"deleted {key} on the server: deleted by you", err=True)
    for key in report.resolved():
        say(f"resolved {key}: the conflict copy is gone", err=True)
    for line in report.summary():
        say(line)


@click.command(epilog=_SYNC_EXAMPLES.format(name="pull"))
@client_options
@_MASS_DELETE_OPTION
def pull(server: str | None, secret: str | None, repo: str | None, as_json: bool, allow_mass_delete: bool) -> None:
    """Bring the server's changes into team/; local changes not pushed yet are kept and reported."""
    with _session(server, secret, repo) as (client, team_dir):
        result = pull_ops.pull(client, SyncState(), team_dir, skip_etag_cache=True, allow_mass_delete=allow_mass_delete)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        _report_pull(result)
        say(SyncReport(result, PushResult()).summary()[0] + f" into {team_dir}")
        say(f"in step: {result.unchanged} unchanged")
    _exit_on(result.problems(), as_json)


@click.command(epilog=_SYNC_EXAMPLES.format(name="push"))
@client_options
@_MASS_DELETE_OPTION
def push(server: str | None, secret: str | None, repo: str | None, as_json: bool, allow_mass_delete: bool) -> None:
    """Upload what changed in team/ (edits, new files, deletions); server changes are never overwritten."""
    with _session(server, secret, repo) as (client, team_dir), progress("pushing team memory") as bar:
        result = push_ops.push(client, SyncState(), team_dir, allow_mass_delete=allow_mass_delete, progress=bar)
    _report_push(result, team_dir)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        say(SyncReport(PullResult(), result).summary()[1] + f" in {counted(result.batches, 'batch', 'batches')}")
        say(f"in step: {result.unchanged} unchanged")
    _exit_on(result.problems(), as_json)


@click.command("sync", epilog=_SYNC_EXAMPLES.format(name="sync"))
@client_options
@_MASS_DELETE_OPTION
def sync_command(
    server: str | None, secret: str | None, repo: str | None, as_json: bool, allow_mass_delete: bool
) -> None:
    """Pull, then push, three-way: one-sided changes flow, two-sided ones are merged or kept as a conflict copy."""
    with _session(server, secret, repo) as (client, team_dir), progress("pushing team memory") as bar:
        report = sync_ops.sync(client, SyncState(), team_dir, allow_mass_delete=allow_mass_delete, progress=bar)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        report_sync(report)
    _exit_on(report.problems(), as_json)


@click.command("status", epilog=_SYNC_EXAMPLES.format(name="status"))
@client_options
def status_command(server: str | None, secret: str | None, repo: str | None, as_json: bool) -> None:
    """Show the server, repository, local files and how every changed key stands. Changes nothing."""
    with _session(server, secret, repo) as (client, team_dir):
        report = sync_ops.status(client, SyncState(), team_dir)
    copies = pending_conflicts(team_dir)
    if as_json:
        body = {**report.to_json(), "team_dir": team_dir, "conflict_copies": [p.to_json() for p in copies]}
        click.echo(json.dumps(body, indent=2, ensure_ascii=False))
        return
    say(f"server:      {report.server}")
    say(f"repository:  {report.repo}")
    say(f"team dir:    {team_dir}")
    say(f"local files: {report.local_files}")
    version = "none (nothing stored yet)" if report.server_version is None else str(report.server_version)
    say(f"server:      version {version}, checksum {report.server_checksum or '-'}")
    say(f"would push:  {counted(len(report.would_push), 'file')}")
    if is_terminal(sys.stdout):  # one row per changed key, grouped by how it stands
        rows = [(name, key) for name, keys in report.classes.items() for key in keys]
        print_table(None, ("how it stands", "file"), rows, lambda row: "\t".join(row))
    else:
        for name, keys in report.classes.items():
            say(f"{name}: {len(keys)}")
            for key in keys:
                say(f"  {key}")
    for skip in report.skipped_secrets:
        say(f"never pushed (potential secrets: {', '.join(skip['labels'])}): {skip['file']}")
    for pending in copies:
        say(
            f"conflict to resolve: {pending.copy} (your version of {pending.original}); "
            f"memdir team resolve {pending.copy} --keep mine|theirs|both"
        )


@click.command("log", epilog="Example:\n\n\b\n  memdir team log\n  memdir team log project_deploy_window.md --json")
@click.argument("key", required=False)
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10_000), help="Most rows shown.")
@client_options
def log_command(
    key: str | None, limit: int, server: str | None, secret: str | None, repo: str | None, as_json: bool
) -> None:
    """The server's history of team memory (or of one KEY), newest first: version, who, when, hash."""
    if key is not None:
        _valid_key(key)
    with _session(server, secret, repo) as (client, _team_dir):
        rows = client.history(key, limit=limit)
    if as_json:
        fields = ("key", "version", "hash", "by", "at", "deleted")
        click.echo(json.dumps([{name: row.get(name) for name in fields} for row in rows], indent=2, ensure_ascii=False))
        return
    if not rows:
        say("no history" + (f" for {key}" if key else ""), err=True)
        return
    for row in rows:
        what = "deleted" if row.get("deleted") else str(row.get("hash", ""))[:19]
        say(f"v{row.get('version')}  {row.get('at')}  {row.get('by') or '-'}  {what}  {row.get('key')}")


def _valid_key(key: str) -> str:
    try:
        return validate_key(key)
    except MemdirError as exc:
        raise click.BadParameter(exc.message, param_hint="KEY") from exc


def _version_of(client: TeamClient, key: str, version: int) -> dict[str, object]:
    found = client.fetch_version(key, version=version)
    if found is None:
        raise click.ClickException(
            f"the server has no version {version} of {key}; 'memdir team log {key}' lists the versions it keeps"
        )
    return found


@click.command("show", epilog="Example:\n\n\b\n  memdir team show project_deploy_window.md --version 12")
@click.argument("key")
@click.option("--version", "version", required=True, type=click.IntRange(min=1), help="Version from 'memdir team log'.")
@client_options
def show_command(
    key: str, version: int, server: str | None, secret: str | None, repo: str | None, as_json: bool
) -> None:
    """Print KEY as it was at VERSION (a deleted version prints the content it had when deleted)."""
    _valid_key(key)
    with _session(server, secret, repo) as (client, _team_dir):
        found = _version_of(client, key, version)
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    show_text(str(found["content"]))


@click.command("restore", epilog="Example:\n\n\b\n  memdir team restore project_deploy_window.md --version 12")
@click.argument("key")
@click.option("--version", "version", required=True, type=click.IntRange(min=1), help="Version from 'memdir team log'.")
@client_options
def restore_command(
    key: str, version: int, server: str | None, secret: str | None, repo: str | None, as_json: bool
) -> None:
    """Make VERSION of KEY current again: a new write on the server (so it is in the history too) and
    in team/. An unpushed local edit of KEY is kept beside it as a conflict copy."""
    _valid_key(key)
    with _session(server, secret, repo) as (client, team_dir):
        found = _version_of(client, key, version)
        result = sync_ops.restore(client, SyncState(), team_dir, key, str(found["content"]))
    if as_json:
        click.echo(json.dumps({"key": key, "restored_version": version, **result}, indent=2, ensure_ascii=False))
        return
    if result.get("kept_as"):
        say(f"your unpushed version of {key} is kept as {result['kept_as']}", err=True)
    say(f"restored {key} to version {version} (now version {result['version']})")


@click.command(
    "watch",
    epilog="Example:\n\n\b\n  export MEMDIR_TEAM_SERVER=https://memdir.example.com MEMDIR_TEAM_TOKEN=mdt_...\n"
    "  memdir team watch",
)
@click.option("--server", help="Server base URL [env MEMDIR_TEAM_SERVER, TEAM_MEMORY_SYNC_URL].")
@click.option("--token", "secret", help="Bearer token [env MEMDIR_TEAM_TOKEN].")
@click.option("--repo", help="OWNER/NAME [default: from the git remote].")
@click.option(
    "--debounce",
    default=2.0,
    show_default=True,
    type=click.FloatRange(min=0.0),
    help="Seconds of quiet after the last change before pushing.",
)
def watch(server: str | None, secret: str | None, repo: str | None, debounce: float) -> None:
    """Pull once, then push team/ changes as they happen, until Ctrl-C or SIGTERM (which flush)."""
    require_extra("memdir team", "watch", "watchfiles")
    import signal
    import threading

    from memdir.team.watcher import watch_team_memory

    stop = threading.Event()

    def on_signal(_signum: int, _frame: object) -> None:
        stop.set()

    def on_push(result: object, error: BaseException | None) -> None:
        if error is not None:
            say(f"sync failed: {getattr(error, 'message', error)}", err=True)
        elif isinstance(result, SyncReport):
            _report_pull(result.pull)
            _report_push(result.push, "")
            if result.push.uploaded or result.push.deleted:
                say(
                    f"pushed {counted(result.push.uploaded, 'file')} in "
                    f"{counted(result.push.batches, 'batch', 'batches')}, "
                    f"deleted {len(result.push.deleted)} on the server",
                    err=True,
                )

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with _session(server, secret, repo) as (client, team_dir):
            watch_team_memory(
                client,
                team_dir,
                stop=stop,
                delay=debounce,
                report=lambda line: say(line, err=True),
                on_push=on_push,
            )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


CLIENT_COMMANDS = (pull, push, sync_command, status_command, log_command, show_command, restore_command, watch)
