"""Storage back ends of the team-memory server, chosen by a database URL.

``sqlite:///path/to/file.db`` (or a bare path) selects SQLite, ``postgresql://...`` PostgreSQL.
Without a URL the SQLite file ``memdir-team.db`` in the Claude config home is used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memdir.errors import ConfigError
from memdir.server.storage.base import DEFAULT_MAX_ENTRIES, Storage, TokenScope

__all__ = ["DEFAULT_MAX_ENTRIES", "Storage", "TokenScope", "default_database_url", "open_storage"]


def default_database_url(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    home = env.get("CLAUDE_CONFIG_DIR") or str(Path(env.get("HOME") or Path.home()) / ".claude")
    return "sqlite:///" + str(Path(home).expanduser() / "memdir-team.db")


def open_storage(url: str | None = None, *, env: Mapping[str, str] | None = None) -> Storage:
    url = url or default_database_url(env)
    if url.startswith(("postgresql://", "postgres://")):
        from memdir.server.storage.postgres import PostgresStorage

        return PostgresStorage(url)
    if url.startswith("sqlite:///"):
        return _sqlite(Path(url.removeprefix("sqlite:///")))
    if "://" in url:
        raise ConfigError(
            f"database URL {url!r} has an unknown scheme; use sqlite:///PATH or postgresql://...",
            rule="database-url",
        )
    return _sqlite(Path(url))


def _sqlite(path: Path) -> Storage:
    from memdir.server.storage.sqlite import SqliteStorage

    return SqliteStorage(path.expanduser())
