"""SQLite storage for a single team-memory server process (the default).

One connection per call keeps the threadpool simple; WAL lets readers run beside the writer, and
``BEGIN IMMEDIATE`` takes the database's write lock up front, so a write sees and replaces the
latest state with nobody in between.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from memdir.server.storage.sql import SCHEMA, TOKEN_NAME_COLUMN, Cursor, SqlStorage

__all__ = ["SqliteStorage"]

_BUSY_TIMEOUT_SECONDS = 30.0


class SqliteStorage(SqlStorage):
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            for statement in SCHEMA:
                conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(team_tokens)")}
            if "name" not in columns:
                conn.execute(TOKEN_NAME_COLUMN)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_SECONDS, isolation_level=None)

    def close(self) -> None:
        """Nothing to release: connections live for one call only."""

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        with closing(self._connect()) as conn:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn.cursor()
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
