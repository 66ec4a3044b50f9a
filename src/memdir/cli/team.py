"""``memdir team``: sync a project's team memory, and run and administer the sync server."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from memdir.cli.main import cli
from memdir.errors import MemdirError
from memdir.server.storage import DEFAULT_MAX_ENTRIES, Storage, open_storage
from memdir.team import sync as sync_ops
from memdir.team.client import TeamClient, resolve_endpoint
from memdir.team.protocol import API_PATH, validate_key, validate_repo
from memdir.team.state import PushResult, SyncState

__all__ = ["team"]

_DB_HELP = (
    "Database URL: sqlite:///PATH or postgresql://USER@HOST/DB "
    "[env MEMDIR_TEAM_DB; default: memdir-team.db in the Claude config home]"
)


def _need(extra: str, *modules: str) -> None:
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise click.ClickException(f"this command needs {module}: pip install 'memdir[{extra}]'")


@contextmanager
def _storage(database: str | None) -> Iterator[Storage]:
    try:
        storage = open_storage(database)
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
def serve(host: str, port: int, database: str | None, max_entries: int) -> None:
    """Run the team-memory sync server (Claude Code's team-memory API)."""
    _need("server", "starlette", "uvicorn")
    import uvicorn

    from memdir.server.app import ServerConfig, create_app

    with _storage(database) as storage:
        app = create_app(storage, ServerConfig(max_entries=max_entries))
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
@click.option("--db", "database", envvar="MEMDIR_TEAM_DB", help=_DB_HELP)
def create_token(repos: tuple[str, ...], admin: bool, database: str | None) -> None:
    """Create a token and print it once; only its hash is stored."""
    patterns = [_repo_pattern(repo) for repo in repos]
    with _storage(database) as storage:
        secret = storage.create_token(patterns, admin=admin)
    click.echo(secret)
    click.echo(f"token for {', '.join(patterns)}{' (admin)' if admin else ''}; it is shown only this once", err=True)


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
        click.echo(f"{info.id}  {info.created_at}  {'admin' if info.admin else 'write'}  {', '.join(info.repos)}")


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

    Sync never propagates deletions, so this is the way to retire a shared file. Teammates who
    still have the file locally will push it again unless they delete it too.
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


@team.command(epilog=_SYNC_EXAMPLES.format(name="pull"))
@_client_options
def pull(server: str | None, secret: str | None, repo: str | None, as_json: bool) -> None:
    """Fetch the repository's team memory into team/ (the server's version wins; nothing is deleted)."""
    with _session(server, secret, repo) as (client, team_dir):
        result = sync_ops.pull(client, SyncState(), team_dir, skip_etag_cache=True)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return
    for skip in result.skipped:
        click.echo(f"refused server key {skip.file!r}: {skip.reason} ({skip.rule})", err=True)
    click.echo(f"pulled {len(result.written)} file(s) into {team_dir}, {result.unchanged} unchanged")


@team.command(epilog=_SYNC_EXAMPLES.format(name="push"))
@_client_options
def push(server: str | None, secret: str | None, repo: str | None, as_json: bool) -> None:
    """Upload the files of team/ that differ from the server's (deletions are not propagated)."""
    with _session(server, secret, repo) as (client, team_dir):
        result = sync_ops.push(client, SyncState(), team_dir)
    _report_push(result, team_dir)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return
    click.echo(f"pushed {result.uploaded} file(s) in {result.batches} batch(es), {result.unchanged} unchanged")


@team.command("sync", epilog=_SYNC_EXAMPLES.format(name="sync"))
@_client_options
def sync_command(server: str | None, secret: str | None, repo: str | None, as_json: bool) -> None:
    """Pull, then push: the server wins for files changed only there, local edits are uploaded."""
    with _session(server, secret, repo) as (client, team_dir):
        pulled, pushed = sync_ops.sync(client, SyncState(), team_dir)
    _report_push(pushed, team_dir)
    if as_json:
        click.echo(json.dumps({"pull": pulled.to_json(), "push": pushed.to_json()}, indent=2, ensure_ascii=False))
        return
    click.echo(
        f"pulled {len(pulled.written)} file(s), pushed {pushed.uploaded} in {pushed.batches} batch(es), "
        f"{pushed.unchanged} unchanged"
    )


@team.command("status", epilog=_SYNC_EXAMPLES.format(name="status"))
@_client_options
def status_command(server: str | None, secret: str | None, repo: str | None, as_json: bool) -> None:
    """Show the server, repository, local files and what a push would send. Changes nothing."""
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
    for key in report.would_push:
        click.echo(f"  {key}")
    if report.server_only:
        click.echo(f"only on the server (a pull would add them): {len(report.server_only)}")
    for skip in report.skipped_secrets:
        click.echo(f"never pushed (potential secrets: {', '.join(skip['labels'])}): {skip['file']}")


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
            click.echo(f"push failed: {getattr(error, 'message', error)}", err=True)
        elif isinstance(result, PushResult):
            _report_push(result, "")
            if result.uploaded:
                click.echo(f"pushed {result.uploaded} file(s) in {result.batches} batch(es)", err=True)

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
