"""Storage back ends of the team-memory server, chosen by a database URL.

``sqlite:///path/to/file.db`` (or a bare path) selects SQLite, ``postgresql://...`` PostgreSQL.
The command line's default is the SQLite file ``memdir-team.db`` in the Claude config home
(:func:`default_database_url`); the CLI resolves that home and hands it in, since the server reads
no environment and no memdir configuration of its own.
"""

from __future__ import annotations

from pathlib import Path

from memdir.errors import ConfigError
from memdir.server.storage.base import Storage

__all__ = ["default_database_url", "open_storage"]


def default_database_url(config_home: str) -> str:
    """The SQLite database ``memdir-team.db`` in ``config_home`` (the Claude config home)."""
    return "sqlite:///" + str(Path(config_home).expanduser() / "memdir-team.db")


def open_storage(url: str) -> Storage:
    """The storage a database URL names: ``postgresql://...``, ``sqlite:///PATH`` or a bare path."""
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
