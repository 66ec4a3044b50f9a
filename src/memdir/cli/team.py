"""``memdir team``: sync a project's team memory, and run and administer the sync server."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from memdir.cli.main import cli
from memdir.cli.terminal import is_terminal, print_table, progress
from memdir.errors import MemdirError
from memdir.server.storage import DEFAULT_MAX_ENTRIES, Storage, default_database_url, open_storage
from memdir.team import sync as sync_ops
from memdir.team.client import TeamClient, resolve_endpoint
from memdir.team.protocol import API_PATH, validate_key, validate_repo
from memdir.team.state import Conflict, PullResult, PushResult, SyncReport, SyncState

__all__ = ["team"]

_DB_HELP = (
    "Database URL: sqlite:///PATH or postgresql://USER@HOST/DB "
    "[env MEMDIR_TEAM_DB; default: memdir-team.db in the Claude config home]"
)


def _need(extra: str, *modules: str) -> None:
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise click.ClickException(f"this command needs {module}: pip install 'memdir[{extra}]'")


def _default_database() -> str:
    """``memdir-team.db`` in the Claude config home: the server reads no environment, so it is resolved here."""
    from memdir.config import read_environment
    from memdir.paths import config_home

    return default_database_url(config_home(read_environment()))


@contextmanager
def _storage(database: str | None) -> Iterator[Storage]:
    try:
        storage = open_storage(database or _default_database())
    except MemdirError as exc:
        raise click.ClickException(exc.message) from exc
    try:
        yield storage
    finally:
        storage.close()


def _repo_pattern(repo: str) -> str:
    if repo == "*" or (repo.endswith("/*") and repo.count("/") == 1 and repo != "/*"):
        return repo
    try:
        return validate_repo(repo)
    except MemdirError as exc:
        raise click.BadParameter(f"{exc.message}; or use OWNER/* or *", param_hint="--repo") from exc


@cli.group(epilog="Example:\n\n\b\n  memdir team token create --repo acme/widgets\n  memdir team serve")
def team() -> None:
    """Team memory: sync team/ with a server (pull, push, sync, status, watch); run and administer one."""


@team.command(
    epilog="Example:\n\n\b\n  memdir team serve --port 8765 --db sqlite:///srv/memdir-team.db\n"
    "  memdir team serve --host 0.0.0.0 --db postgresql://memdir@db/memdir --max-entries 2000"
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="TCP port.")
@click.option("--db", "database", envvar="MEMDIR_TEAM_DB", help=_DB_HELP)
@click.option(
    "--max-entries",
    default=DEFAULT_MAX_ENTRIES,
    show_default=True,
    type=click.IntRange(min=1),
    help="Most entries one repository may hold; pushes beyond it get a structured 413.",
)
@click.option(
    "--keep-versions",
    type=click.IntRange(min=1),
    help="History kept per key: the newest N versions [default: all].",
)
@click.option(
    "--keep-days",
    type=click.FloatRange(min=0.0, min_open=True),
    help="History kept per key: versions younger than D days [default: all]. The newest always stays.",
)
def serve(
    host: str, port: int, database: str | None, max_entries: int, keep_versions: int | None, keep_days: float | None
) -> None:
    """Run the team-memory sync server (Claude Code's team-memory API, plus history and /health)."""
    _need("server", "starlette", "uvicorn")
    import uvicorn

    from memdir.server.app import ServerConfig, create_app
    from memdir.server.storage.base import Retention

    retention = Retention(keep_versions, keep_days) if keep_versions or keep_days else None
    with _storage(database) as storage:
        app = create_app(storage, ServerConfig(max_entries=max_entries, retention=retention))
        uvicorn.run(app, host=host, port=port, log_level="info")


@team.group(epilog="Example:\n\n\b\n  memdir team token create --repo acme/widgets")
def token() -> None:
    """Bearer tokens of the sync server."""


@token.command(
    "create",
    epilog="Example:\n\n\b\n  memdir team token create --repo acme/widgets --repo acme/docs\n"
    "  memdir team token create --repo 'acme/*' --admin --db postgresql://memdir@db/memdir",
)
@click.option("--repo", "repos", multiple=True, required=True, help="OWNER/NAME, OWNER/* or * (repeatable).")
@click.option("--admin", is_flag=True, help="Also allow deleting keys (memdir team rm).")
@click.option(
    "--name",
    help="Who uses the token, a person or a machine; the history shows it [default: USER@HOST].",
)
@click.option("--db", "database", envvar="MEMDIR_TEAM_DB", help=_DB_HELP)
def create_token(repos: tuple[str, ...], admin: bool, name: str | None, database: str | None) -> None:
    """Create a token and print it once; only its hash is stored."""
    patterns = [_repo_pattern(repo) for repo in repos]
    who = (name if name is not None else _default_token_name()).strip()
    if not who or len(who.encode("utf-8")) > 200 or not who.isprintable():
        raise click.BadParameter("give a printable name of at most 200 UTF-8 bytes", param_hint="--name")
    with _storage(database) as storage:
        secret = storage.create_token(patterns, admin=admin, name=who)
    click.echo(secret)
    scope = f"{', '.join(patterns)}{' (admin)' if admin else ''}"
    click.echo(f"token {who!r} for {scope}; it is shown only this once", err=True)


def _default_token_name() -> str:
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


@token.command(
    "list",
    epilog="Example:\n\n\b\n  memdir team token list\n  memdir team token list --json --db postgresql://memdir@db/memdir",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON array instead of a table.")
@click.option("--db", "database", envvar="MEMDIR_TEAM_DB", help=_DB_HELP)
def list_tokens(as_json: bool, database: str | None) -> None:
    """List stored tokens: id (from the hash; secrets are never stored), scope, admin, created."""
    with _storage(database) as storage:
        tokens = storage.list_tokens()
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(info) for info in tokens], indent=2))
        return
    if not tokens:
        click.echo("no tokens", err=True)
        return
    for info in tokens:
        role = "admin" if info.admin else "write"
        click.echo(f"{info.id}  {info.created_at}  {role}  {', '.join(info.repos)}  {info.name or '-'}")


@token.command(
    "revoke",
    epilog='Example:\n\n\b\n  memdir team token revoke 3f9a1c0d2b7e\n  memdir team token revoke "$OLD_TOKEN"',
)
@click.argument("token_or_id")
@click.option("--db", "database", envvar="MEMDIR_TEAM_DB", help=_DB_HELP)
def revoke_token(token_or_id: str, database: str | None) -> None:
    """Revoke a token, named by its id from `memdir team token list` (8+ digits) or by the token itself.

    The server checks every request against the database, so the token stops working at once.
    """
    with _storage(database) as storage:
        try:
            revoked = storage.revoke_token(token_or_id)
        except MemdirError as exc:
            raise click.ClickException(exc.message) from exc
    if revoked is None:
        raise click.ClickException(f"no token matches {token_or_id!r}; `memdir team token list` shows the ids")
    click.echo(f"revoked {revoked.id} ({', '.join(revoked.repos)}{', admin' if revoked.admin else ''})")


@team.command(
    "rm",
    epilog="Example:\n\n\b\n  memdir team rm notes/old.md --repo acme/widgets \\\n"
    "      --server https://memdir.example.com --token $MEMDIR_TEAM_TOKEN",
)
@click.argument("key")
@click.option("--repo", required=True, help="OWNER/NAME of the repository.")
@click.option(
    "--server",
    required=True,
    envvar="TEAM_MEMORY_SYNC_URL",
    help="Server base URL [env TEAM_MEMORY_SYNC_URL].",
)
@click.option(
    "--token",
    "secret",
    required=True,
    envvar="MEMDIR_TEAM_TOKEN",
    help="Admin token [env MEMDIR_TEAM_TOKEN].",
)
def remove(key: str, repo: str, server: str, secret: str) -> None:
    """Delete one key from a repository's team memory on the server (admin token needed).

    Deleting the file in team/ and syncing does the same without an admin token; this command
    is for keys no clone has. The server keeps a tombstone, so clones that still hold the
    unchanged file remove it on their next pull.
    """
    _need("team", "httpx")
    import httpx

    try:
        validate_repo(repo)
        validate_key(key)
    except MemdirError as exc:
        raise click.BadParameter(exc.message) from exc
    url = server.rstrip("/") + API_PATH
    try:
        response = httpx.delete(
            url, params={"repo": repo, "key": key}, headers={"Authorization": f"Bearer {secret}"}, timeout=30
        )
    except httpx.HTTPError as exc:
        raise click.ClickException(f"cannot reach {url}: {exc}") from exc
    if response.status_code != 200:
        raise click.ClickException(f"server refused ({response.status_code}): {_message(response.text)}")
    click.echo(f"deleted {key} from {repo} (version {response.json().get('version')})")


def _message(text: str) -> str:
    try:
        body = json.loads(text)
        return str(body["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return text[:200]


# --- the sync client -------------------------------------------------------------------------

_SYNC_EXAMPLES = (
    "Examples:\n\n\b\n  export MEMDIR_TEAM_SERVER=https://memdir.example.com MEMDIR_TEAM_TOKEN=mdt_...\n"
    "  memdir team {name}\n  memdir team {name} --repo acme/widgets --json"
)


def _client_options(command: Callable[..., None]) -> Callable[..., None]:
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
    from memdir.cli.main import CliState

    _need("team", "httpx")
    state = click.get_current_context().find_object(CliState)
    assert state is not None
    config = state.config
    endpoint = resolve_endpoint(
        cwd=config.project_root,
        server=server,
        token=secret,
        repo=repo,
        settings_server=config.setting("teamServer"),
        environment=config.environment,
    )
    with TeamClient(endpoint) as client:
        yield client, config.team_dir


def _report_push(result: PushResult, team_dir: str) -> None:
    for skip in result.skipped_secrets:
        click.echo(f"skipped {skip.file}: potential secrets ({', '.join(skip.labels)}); not pushed", err=True)
    for other in result.skipped:
        click.echo(f"skipped {other.file}: {other.reason} ({other.rule})", err=True)
    if result.capped:
        click.echo(f"skipped {result.capped} file(s) beyond the server's entry limit", err=True)
    for key, why in result.not_pushed:
        click.echo(f"not pushed {key}: {why}", err=True)
    for conflict in result.conflicts:
        click.echo(f"restored {conflict.key} on the server: it was deleted there, but you had changed it", err=True)
    if result.held_deletions:
        count = len(result.held_deletions)
        click.echo(
            sync_ops.mass_delete_message(count, count + result.unchanged + result.uploaded, "from the server"),
            err=True,
        )


def _report_pull(result: PullResult) -> None:
    for skip in result.skipped:
        if skip.rule == "changed-during-sync":
            click.echo(f"kept {skip.file}: {skip.reason}", err=True)
        else:
            click.echo(f"refused server key {skip.file!r}: {skip.reason} ({skip.rule})", err=True)
    for key in result.deleted:
        click.echo(f"deleted {key}: deleted on the server", err=True)
    for key in result.merged:
        click.echo(f"merged {key}: your edits and the server's touch different lines; both kept", err=True)
    for conflict in result.conflicts:
        click.echo(_conflict_line(conflict), err=True)
    for key, why in result.kept_local:
        if not any(conflict.key == key for conflict in result.conflicts):
            click.echo(f"kept {key}: {why}", err=True)
    if result.held_deletions:
        count = len(result.held_deletions)
        click.echo(sync_ops.mass_delete_message(count, count + result.unchanged, "in team/"), err=True)


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
    help=f"Propagate deletions of more than {sync_ops.MASS_DELETE_FILES} files or a quarter of team/ at once.",
)


def _held(*results: PullResult | PushResult) -> None:
    if any(result.held_deletions for result in results):
        raise SystemExit(1)


@team.command(epilog=_SYNC_EXAMPLES.format(name="pull"))
@_client_options
@_MASS_DELETE_OPTION
def pull(server: str | None, secret: str | None, repo: str | None, as_json: bool, allow_mass_delete: bool) -> None:
    """Bring the server's changes into team/; local changes not pushed yet are kept and reported."""
    with _session(server, secret, repo) as (client, team_dir):
        result = sync_ops.pull(client, SyncState(), team_dir, skip_etag_cache=True, allow_mass_delete=allow_mass_delete)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        _report_pull(result)
        deleted = f", {len(result.deleted)} deleted" if result.deleted else ""
        conflicts = f", {len(result.conflicts)} conflict(s)" if result.conflicts else ""
        click.echo(
            f"pulled {len(result.written)} file(s) into {team_dir}, {result.unchanged} unchanged{deleted}{conflicts}"
        )
    _held(result)


@team.command(epilog=_SYNC_EXAMPLES.format(name="push"))
@_client_options
@_MASS_DELETE_OPTION
def push(server: str | None, secret: str | None, repo: str | None, as_json: bool, allow_mass_delete: bool) -> None:
    """Upload what changed in team/ (edits, new files, deletions); server changes are never overwritten."""
    with _session(server, secret, repo) as (client, team_dir), progress("pushing team memory") as bar:
        result = sync_ops.push(client, SyncState(), team_dir, allow_mass_delete=allow_mass_delete, progress=bar)
    _report_push(result, team_dir)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        deleted = f", deleted {len(result.deleted)} on the server" if result.deleted else ""
        click.echo(
            f"pushed {result.uploaded} file(s) in {result.batches} batch(es){deleted}, {result.unchanged} unchanged"
        )
    _held(result)


@team.command("sync", epilog=_SYNC_EXAMPLES.format(name="sync"))
@_client_options
@_MASS_DELETE_OPTION
def sync_command(
    server: str | None, secret: str | None, repo: str | None, as_json: bool, allow_mass_delete: bool
) -> None:
    """Pull, then push, three-way: one-sided changes flow, two-sided ones are merged or kept as a conflict copy."""
    with _session(server, secret, repo) as (client, team_dir), progress("pushing team memory") as bar:
        report = sync_ops.sync(client, SyncState(), team_dir, allow_mass_delete=allow_mass_delete, progress=bar)
    pulled, pushed = report.pull, report.push
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        _report_pull(pulled)
        _report_push(pushed, team_dir)
        counts = report.to_json()
        click.echo(
            f"pulled {counts['pulled']} file(s), pushed {counts['pushed']}, deleted here {counts['deleted_here']}, "
            f"deleted there {counts['deleted_there']}, {len(counts['conflicts'])} conflict(s), "
            f"{pushed.unchanged} unchanged"
        )
    _held(pulled, pushed)


@team.command("status", epilog=_SYNC_EXAMPLES.format(name="status"))
@_client_options
def status_command(server: str | None, secret: str | None, repo: str | None, as_json: bool) -> None:
    """Show the server, repository, local files and how every changed key stands. Changes nothing."""
    with _session(server, secret, repo) as (client, team_dir):
        report = sync_ops.status(client, SyncState(), team_dir)
    if as_json:
        click.echo(json.dumps({**report.to_json(), "team_dir": team_dir}, indent=2, ensure_ascii=False))
        return
    click.echo(f"server:      {report.server}")
    click.echo(f"repository:  {report.repo}")
    click.echo(f"team dir:    {team_dir}")
    click.echo(f"local files: {report.local_files}")
    version = "none (nothing stored yet)" if report.server_version is None else str(report.server_version)
    click.echo(f"server:      version {version}, checksum {report.server_checksum or '-'}")
    click.echo(f"would push:  {len(report.would_push)} file(s)")
    if is_terminal(sys.stdout):  # one row per changed key, grouped by how it stands
        rows = [(name, key) for name, keys in report.classes.items() for key in keys]
        print_table(None, ("how it stands", "file"), rows, lambda row: "\t".join(row))
    else:
        for name, keys in report.classes.items():
            click.echo(f"{name}: {len(keys)}")
            for key in keys:
                click.echo(f"  {key}")
    for skip in report.skipped_secrets:
        click.echo(f"never pushed (potential secrets: {', '.join(skip['labels'])}): {skip['file']}")


@team.command("log", epilog="Example:\n\n\b\n  memdir team log\n  memdir team log project_deploy_window.md --json")
@click.argument("key", required=False)
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10_000), help="Most rows shown.")
@_client_options
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
        click.echo("no history" + (f" for {key}" if key else ""), err=True)
        return
    for row in rows:
        what = "deleted" if row.get("deleted") else str(row.get("hash", ""))[:19]
        click.echo(f"v{row.get('version')}  {row.get('at')}  {row.get('by') or '-'}  {what}  {row.get('key')}")


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


@team.command("show", epilog="Example:\n\n\b\n  memdir team show project_deploy_window.md --version 12")
@click.argument("key")
@click.option("--version", "version", required=True, type=click.IntRange(min=1), help="Version from 'memdir team log'.")
@_client_options
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
    click.echo(str(found["content"]), nl=False)


@team.command("restore", epilog="Example:\n\n\b\n  memdir team restore project_deploy_window.md --version 12")
@click.argument("key")
@click.option("--version", "version", required=True, type=click.IntRange(min=1), help="Version from 'memdir team log'.")
@_client_options
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
        click.echo(f"your unpushed version of {key} is kept as {result['kept_as']}", err=True)
    click.echo(f"restored {key} to version {version} (now version {result['version']})")


@team.command(
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
    _need("watch", "watchfiles")
    import signal
    import threading

    from memdir.team.watcher import watch_team_memory

    stop = threading.Event()

    def on_signal(_signum: int, _frame: object) -> None:
        stop.set()

    def on_push(result: object, error: BaseException | None) -> None:
        if error is not None:
            click.echo(f"sync failed: {getattr(error, 'message', error)}", err=True)
        elif isinstance(result, SyncReport):
            _report_pull(result.pull)
            _report_push(result.push, "")
            if result.push.uploaded or result.push.deleted:
                click.echo(
                    f"pushed {result.push.uploaded} file(s) in {result.push.batches} batch(es), "
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
                report=lambda line: click.echo(line, err=True),
                on_push=on_push,
            )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
