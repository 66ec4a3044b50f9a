"""PostgreSQL storage, for deployments that run several server processes on one database.

Each write locks its repo's row (``SELECT ... FOR UPDATE``) for the whole transaction, so two
processes pushing to one repo are serialised and ``If-Match`` is checked against the state that
the write then replaces. Reads run at REPEATABLE READ so metadata and entries agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memdir.errors import ConfigError
from memdir.server.storage.base import StorageUnavailable
from memdir.server.storage.sql import ENTRY_AUTHOR_COLUMN, SCHEMA, TOKEN_NAME_COLUMN, Cursor, SqlStorage

__all__ = ["PostgresStorage"]

_SCHEMA_LOCK = 0x6D656D646972  # any constant; serialises CREATE TABLE between starting processes


class _Placeholders:
    """Adapts the shared ``?`` SQL to psycopg's ``%s`` placeholders."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def execute(self, sql: str, params: Any = ()) -> Any:
        return self._cursor.execute(sql.replace("?", "%s"), tuple(params))

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())


class PostgresStorage(SqlStorage):
    _LOCK_ROW = " FOR UPDATE"

    def __init__(self, url: str, *, max_connections: int = 10) -> None:
        try:
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise ConfigError(
                "PostgreSQL storage needs psycopg: pip install 'memdir[postgres]'", rule="missing-extra"
            ) from exc
        # No check on checkout (it costs a round trip per transaction): a connection a PostgreSQL
        # restart left dead fails its BEGIN, and _transaction then checks the pool and retries once.
        self._pool = ConnectionPool(
            url, min_size=1, max_size=max_connections, open=True, kwargs={"autocommit": True}, timeout=10.0
        )
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in SCHEMA:
                conn.execute(statement)
            conn.execute(TOKEN_NAME_COLUMN.replace("ADD COLUMN", "ADD COLUMN IF NOT EXISTS"))
            found = conn.execute(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name = 'team_entries' AND column_name = 'by_name'"
            ).fetchone()
            if found is None:
                for statement in ENTRY_AUTHOR_COLUMN:
                    conn.execute(statement)

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        """A transaction on a pooled connection; the isolation level rides on the BEGIN itself.

        A failure before the block starts (the BEGIN on a connection a restart killed) is retried
        once after the pool has tested and replaced its idle connections; nothing was sent then, so
        the retry cannot apply anything twice. A failure once the block runs, or at COMMIT, is
        never retried: the caller gets StorageUnavailable and the client retries the whole request.
        """
        import psycopg
        import psycopg_pool

        for attempt in (1, 2):
            begun = False
            try:
                with self._pool.connection() as conn:
                    conn.isolation_level = None if write else psycopg.IsolationLevel.REPEATABLE_READ
                    with conn.transaction(), conn.cursor() as cur:
                        begun = True
                        yield _Placeholders(cur)
                return
            except psycopg.OperationalError as exc:
                if begun or attempt == 2:
                    raise StorageUnavailable(f"the PostgreSQL database is unreachable ({exc}); retry shortly") from exc
                self._pool.check()
            except psycopg_pool.PoolTimeout as exc:
                raise StorageUnavailable(f"the PostgreSQL database is unreachable ({exc}); retry shortly") from exc

    def close(self) -> None:
        self._pool.close()
