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
from memdir.server.storage.sql import SCHEMA, TOKEN_NAME_COLUMN, Cursor, SqlStorage

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
        # check: a pooled connection is tested before it is handed out, so the connections a
        # PostgreSQL restart left dead are replaced instead of failing the next requests.
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            open=True,
            kwargs={"autocommit": True},
            check=ConnectionPool.check_connection,
            timeout=10.0,
        )
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in SCHEMA:
                conn.execute(statement)
            conn.execute(TOKEN_NAME_COLUMN.replace("ADD COLUMN", "ADD COLUMN IF NOT EXISTS"))

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        import psycopg
        import psycopg_pool

        try:
            with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                if not write:
                    cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                yield _Placeholders(cur)
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as exc:
            raise StorageUnavailable(f"the PostgreSQL database is unreachable ({exc}); retry shortly") from exc

    def close(self) -> None:
        self._pool.close()
