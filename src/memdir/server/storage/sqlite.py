"""SQLite storage for a single team-memory server process (the default).

Each thread keeps one connection for its calls (opening one per call, and preparing every
statement afresh on it, cost more than the queries themselves); WAL lets readers run beside the
writer, and ``BEGIN IMMEDIATE`` takes the database's write lock up front, so a write sees and
replaces the latest state with nobody in between.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from memdir.server.storage.sql import ENTRY_AUTHOR_COLUMN, SCHEMA, TOKEN_NAME_COLUMN, Cursor, SqlStorage

__all__ = ["SqliteStorage"]

_BUSY_TIMEOUT_SECONDS = 30.0


def _private_parent(directory: Path) -> None:
    """Create the database's folder (and missing parents) with mode 0700."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)


class SqliteStorage(SqlStorage):
    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._open: list[tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = []
        self._open_lock = threading.Lock()
        _private_parent(path.parent)
        # Every team memory and every token hash: readable by its owner only, the -wal and -shm
        # files SQLite makes beside it included (they take the database file's permissions).
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        with closing(self._connect()) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            for statement in SCHEMA:
                conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(team_tokens)")}
            if "name" not in columns:
                conn.execute(TOKEN_NAME_COLUMN)
            with conn:  # checked under the write lock: two servers starting together add it once
                conn.execute("BEGIN IMMEDIATE")
                if "by_name" not in {row[1] for row in conn.execute("PRAGMA table_info(team_entries)")}:
                    for statement in ENTRY_AUTHOR_COLUMN:
                        conn.execute(statement)

    def _connect(self) -> sqlite3.Connection:
        # check_same_thread off only so close() may close every thread's connection; each is
        # still used by the one thread that opened it.
        return sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)

    def _thread_connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._open_lock:  # the connections of threads that have ended are closed here
                for thread, dead in [(t, c) for t, c in self._open if not _alive(t)]:
                    dead.close()
                    self._open.remove((thread, dead))
                self._open.append((weakref.ref(threading.current_thread()), conn))
        elif conn.in_transaction:  # a COMMIT or ROLLBACK that failed last time
            conn.rollback()
        return conn

    def close(self) -> None:
        """Close every thread's connection; a later call opens a new one."""
        with self._open_lock:
            self._local = threading.local()
            for _, conn in self._open:
                conn.close()
            self._open.clear()

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        conn = self._thread_connection()
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield conn.cursor()
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


def _alive(thread: weakref.ref[threading.Thread]) -> bool:
    live = thread()
    return live is not None and live.is_alive()
