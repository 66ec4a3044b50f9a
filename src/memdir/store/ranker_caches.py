"""What the rankers keep in the derived index: lexical analyses and embedding vectors.

Both are pure caches, keyed so that a stale entry is never used: analyses by memory path with
the (mtime, size) they were made from and a version of the analysis, vectors by the hash of the
text they encode and the model. :class:`memdir.store.index_db.MemoryIndex` provides the
connection handling (``_run``) that recovers from a damaged database.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

__all__ = ["CACHE_SCHEMA", "RankerCaches"]

_T = TypeVar("_T")
# Declared here, beside the SQL below; the index creates them with its own tables.
CACHE_SCHEMA = """
CREATE TABLE IF NOT EXISTS analyses(
    path TEXT NOT NULL,
    version TEXT NOT NULL,
    mtime_ms REAL NOT NULL,
    size INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (path, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vectors(
    hash TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (hash, model)
) WITHOUT ROWID;
"""


class RankerCaches(ABC):
    """The ``analyses`` and ``vectors`` tables, for a class that runs steps on its connection."""

    @abstractmethod
    def _run(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``step`` on the open connection, rebuilding a damaged database once."""

    def _select_in(self, sql: str, scope: str, keys: Sequence[str]) -> list[Any]:
        """Rows of ``sql`` (``?`` for ``scope``, ``{marks}`` for the keys) in chunks SQLite accepts."""
        rows: list[Any] = []
        keys = list(keys)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            query = sql.format(marks=",".join("?" * len(chunk)))

            def step(conn: sqlite3.Connection, query: str = query, params: tuple[str, ...] = (scope, *chunk)) -> Any:
                return conn.execute(query, params).fetchall()

            rows.extend(self._run(step))
        return rows

    def _write_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        def step(conn: sqlite3.Connection) -> None:
            with conn:
                conn.executemany(sql, rows)

        self._run(step)

    def get_analyses(self, paths: Sequence[str], version: str) -> dict[str, tuple[float, int, str]]:
        sql = "SELECT path, mtime_ms, size, payload FROM analyses WHERE version=? AND path IN ({marks})"
        return {str(p): (float(m), int(z), str(d)) for p, m, z, d in self._select_in(sql, version, paths)}

    def put_analyses(self, items: Mapping[str, tuple[float, int, str]], version: str) -> None:
        self._write_many(
            "INSERT OR REPLACE INTO analyses(path, version, mtime_ms, size, payload) VALUES (?, ?, ?, ?, ?)",
            [(path, version, mtime, size, payload) for path, (mtime, size, payload) in items.items()],
        )

    def get_vectors(self, hashes: Sequence[str], model_id: str) -> dict[str, bytes]:
        sql = "SELECT hash, vector FROM vectors WHERE model=? AND hash IN ({marks})"
        return {str(h): bytes(v) for h, v in self._select_in(sql, model_id, hashes)}

    def put_vectors(self, items: Mapping[str, bytes], model_id: str) -> None:
        self._write_many(
            "INSERT OR REPLACE INTO vectors(hash, model, vector) VALUES (?, ?, ?)",
            [(h, model_id, blob) for h, blob in items.items()],
        )
