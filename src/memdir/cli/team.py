"""``memdir team``: run the team-memory sync server and administer it."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from contextlib import contextmanager

import click

from memdir.errors import MemdirError
from memdir.server.storage import DEFAULT_MAX_ENTRIES, Storage, open_storage
from memdir.team.protocol import API_PATH, validate_key, validate_repo

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


@click.group(epilog="Example:\n\n\b\n  memdir team token create --repo acme/widgets\n  memdir team serve")
def team() -> None:
    """Team memory: the sync server, its tokens and administration."""


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
