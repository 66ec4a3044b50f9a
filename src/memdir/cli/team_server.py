"""``memdir team serve | token | rm``: run the team sync server and administer its tokens and keys."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import contextmanager

import click

from memdir.cli.extras import require_extra
from memdir.errors import MemdirError
from memdir.server.storage import default_database_url, open_storage
from memdir.server.storage.base import DEFAULT_MAX_ENTRIES, Storage
from memdir.team.protocol import API_PATH, validate_key, validate_repo

__all__ = ["SERVER_COMMANDS"]


_DB_HELP = (
    "Database URL: sqlite:///PATH or postgresql://USER@HOST/DB "
    "[env MEMDIR_TEAM_DB; default: memdir-team.db in the Claude config home]"
)


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


@click.command(
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
    require_extra("memdir team", "server", "starlette", "uvicorn")
    import uvicorn

    from memdir.server.app import ServerConfig, create_app
    from memdir.server.storage.base import Retention

    retention = Retention(keep_versions, keep_days) if keep_versions or keep_days else None
    url = database or _default_database()
    with _storage(database) as storage:
        app = create_app(storage, ServerConfig(max_entries=max_entries, retention=retention))
        _announce(storage, url, host, port)
        uvicorn.run(app, host=host, port=port, log_level="info")


def _announce(storage: Storage, url: str, host: str, port: int) -> None:
    """Where the data is, where the dashboard is, and how to make the first token."""
    import re

    from memdir.server.dashboard import DASHBOARD_PATH

    shown = re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)  # never print a database password
    where = "localhost" if host in ("127.0.0.1", "::1") else host
    click.echo(f"database:  {shown}", err=True)
    address = f"http://{where}:{port}{DASHBOARD_PATH}/" if port else f"{DASHBOARD_PATH}/ on the port below"
    click.echo(f"dashboard: {address} (sign in with a token)", err=True)
    if not storage.list_tokens():
        db = "" if url == _default_database() else f" --db '{shown}'"
        click.echo(f"no token yet: create one with  memdir team token create --repo 'OWNER/*' --admin{db}", err=True)


@click.group(epilog="Example:\n\n\b\n  memdir team token create --repo acme/widgets")
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


@click.command(
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
    require_extra("memdir team", "team", "httpx")
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


SERVER_COMMANDS = (serve, token, remove)
