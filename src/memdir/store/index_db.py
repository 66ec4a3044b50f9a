"""The derived index: a SQLite mirror of every memory's header and text, with FTS5, vectors and analyses.

The Markdown files stay the truth. This database only makes large stores fast: a rescan of
100,000 memories costs one ``stat`` per file and reads only the files whose (mtime, size)
changed, and a process that recalls often keeps the headers in memory between refreshes. It
lives outside the memory directory (:func:`index_path`: ``<configHome>/memdir/index/<hash of the
directory>.sqlite3``, where ``config.open_index`` opens it) so that Claude Code and team sync
never see it. Delete it at any time: it is rebuilt on the next use, and rebuilt automatically
when it is missing, from an older schema, or unreadable.

Freshness: files added, removed, renamed or replaced atomically change their directory's
mtime and are seen on the next call; a file rewritten in place by another program is seen at
the next full refresh, at most ``refresh_interval`` seconds later (or at once with
:meth:`MemoryIndex.refresh`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from memdir.containment import normalize_root
from memdir.errors import MemoryFormatError
from memdir.model.analysis import spaced_pairs
from memdir.model.frontmatter import decode_memory_bytes, normalize_newlines
from memdir.model.memory_type import FrontmatterLayout, parse_memory_type
from memdir.store.files import create_private_file, ensure_dir, read_bytes_limited
from memdir.store.memdir import MemoryDir, WriteGuard
from memdir.store.ranker_caches import RankerCaches
from memdir.store.scan import MAX_MEMORY_FILES, MemoryHeader, iter_memory_paths, read_header

__all__ = ["SCHEMA_VERSION", "IndexedMemoryDir", "MemoryIndex", "RefreshStats", "index_path"]

# 2: headers read the type nested under metadata:; 3: Chinese, Japanese, Korean and Thai text is
# indexed as pairs of characters (spaced_pairs); 4: headers keep whether the type came from
# metadata: (nested_type), which releases before 2.1.330 do not read; 5: headers keep the
# frontmatter's modified: time and expires: date.
SCHEMA_VERSION = "5"
# Field weights for FTS5's bm25(): name, description, body (the same order of importance as recall's).
FTS_WEIGHTS = (2.5, 3.0, 1.0)
_BODY_CHARS = 32 * 1024
_FRONTMATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL UNIQUE,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    name TEXT,
    description TEXT,
    type TEXT,
    nested_type INTEGER NOT NULL DEFAULT 0,
    modified_ms REAL,
    expires TEXT,
    preview TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(name, description, body, tokenize='porter unicode61');
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


def index_path(memory_dir: str, home: str) -> str:
    """``<home>/memdir/index/<sha256 of the directory, 16 hex>.sqlite3``, ``home`` being the config home."""
    root = normalize_root(memory_dir)
    digest = hashlib.sha256(root.encode("utf-8")).hexdigest()[:16]
    return os.path.join(home, "memdir", "index", f"{digest}.sqlite3")


@dataclass(frozen=True)
class RefreshStats:
    """What one refresh did."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: int = 0  # files that could not be read as memories
    seconds: float = 0.0
    full: bool = True

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed


def _fts_query(text: str) -> str:
    words = dict.fromkeys(word.lower() for word in _WORD.findall(spaced_pairs(text)))
    return " OR ".join(f'"{word}"' for word in words)


class MemoryIndex(RankerCaches):
    """The derived SQLite index of one memory directory; thread-safe, never authoritative."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        db_path: str,
        *,
        refresh_interval: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = normalize_root(root)
        self.path = db_path
        self.refresh_interval = refresh_interval
        self.clock = clock
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._headers: dict[str, MemoryHeader] | None = None
        self._stamps: dict[str, tuple[int, int, int]] = {}  # file -> (row id, mtime_ns, size)
        self._ordered: list[MemoryHeader] | None = None
        self._dir_mtimes: dict[str, int] = {}
        self._last_full: float | None = None
        # Called as (done, total) while a refresh reads changed files, for a progress bar.
        self.on_progress: Callable[[int, int], None] | None = None

    # -- connection ------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        ensure_dir(os.path.dirname(self.path) or ".")
        for attempt in (1, 2):
            create_private_file(self.path)
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10.0)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
                row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row is not None and (row[0] != SCHEMA_VERSION or self._stored_root(conn) != self.root):
                    raise sqlite3.DatabaseError("index from another schema or directory")
                conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema', ?), ('root', ?)", (SCHEMA_VERSION, self.root)
                )
                conn.commit()
            except sqlite3.DatabaseError:
                conn.close()
                if attempt == 2:
                    raise
                self._discard_files()
                continue
            self._conn = conn
            return conn
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _stored_root(conn: sqlite3.Connection) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key='root'").fetchone()
        return None if row is None else str(row[0])

    def _discard_files(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.path + suffix)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> MemoryIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _recovering(self) -> Iterator[sqlite3.Connection]:
        """Run a step; if the database turns out to be corrupt, drop it, rebuild it, and run it again."""
        try:
            yield self._connect()
        except sqlite3.DatabaseError:
            self.close()
            self._discard_files()
            self._headers = self._ordered = None
            self._stamps = {}
            raise

    def _run(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        with self._lock:
            try:
                with self._recovering() as conn:
                    return step(conn)
            except sqlite3.DatabaseError:
                with self._recovering() as conn:
                    if self._headers is None:
                        self._refresh(conn)
                    return step(conn)

    # -- refresh ---------------------------------------------------------------------------
    def _read(self, rel: str, st: os.stat_result) -> tuple[MemoryHeader, str] | None:
        path = os.path.join(self.root, rel)
        try:
            header = read_header(path, filename=rel, mtime_ms=st.st_mtime_ns / 1e6, size=st.st_size)
            text = normalize_newlines(decode_memory_bytes(read_bytes_limited(path), path=path))
        except (OSError, MemoryFormatError):
            return None
        match = _FRONTMATTER.match(text)
        body = text[match.end() :] if match else text
        return header, body[:_BODY_CHARS]

    def _load_headers(self, conn: sqlite3.Connection) -> dict[str, MemoryHeader]:
        headers: dict[str, MemoryHeader] = {}
        self._stamps = {}
        rows = conn.execute(
            "SELECT id, file, mtime_ns, size, name, description, type, nested_type, preview, modified_ms, expires "
            "FROM memories"
        )
        for rowid, file, mtime_ns, size, name, description, kind, nested, preview, modified, expires in rows:
            self._stamps[file] = (rowid, mtime_ns, size)
            headers[file] = MemoryHeader(
                filename=file,
                path=os.path.join(self.root, file),
                mtime_ms=mtime_ns / 1e6,
                size=size,
                description=description,
                type=parse_memory_type(kind),
                name=name,
                preview=preview,
                nested_type=bool(nested),
                modified_ms=modified,
                expires=expires,
            )
        return headers

    def _refresh(self, conn: sqlite3.Connection) -> RefreshStats:
        started = time.perf_counter()
        if self._headers is None:
            self._headers = self._load_headers(conn)
        known = self._headers
        stamps = self._stamps
        added = updated = unchanged = skipped = 0
        seen: set[str] = set()
        dirs: dict[str, int] = {}
        with contextlib.suppress(OSError):
            dirs[""] = os.stat(self.root).st_mtime_ns
        changes: list[tuple[str, os.stat_result]] = []
        for rel, st in iter_memory_paths(self.root):
            seen.add(rel)
            parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
            if parent not in dirs:
                with contextlib.suppress(OSError):
                    dirs[parent] = os.stat(os.path.join(self.root, parent)).st_mtime_ns
            previous = stamps.get(rel)
            if previous is not None and previous[1:] == (st.st_mtime_ns, st.st_size):
                unchanged += 1
            else:
                changes.append((rel, st))
        removed = [file for file in stamps if file not in seen]
        with conn:
            for file in removed:
                self._delete(conn, file)
            for done, (rel, st) in enumerate(changes, start=1):
                if self.on_progress is not None:
                    self.on_progress(done, len(changes))
                read = self._read(rel, st)
                if read is None:
                    skipped += 1
                    if rel in stamps:
                        self._delete(conn, rel)
                    continue
                header, body = read
                digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]
                kind = header.type.value if header.type is not None else None
                values = (
                    st.st_mtime_ns,
                    st.st_size,
                    header.name,
                    header.description,
                    kind,
                    int(header.nested_type),
                    header.modified_ms,
                    header.expires,
                    header.preview,
                    body,
                    digest,
                )
                if rel in stamps:
                    updated += 1
                    rowid = stamps[rel][0]
                    conn.execute(
                        "UPDATE memories SET mtime_ns=?, size=?, name=?, description=?, type=?, nested_type=?, "
                        "modified_ms=?, expires=?, preview=?, body=?, hash=? WHERE id=?",
                        (*values, rowid),
                    )
                    conn.execute("DELETE FROM memories_fts WHERE rowid=?", (rowid,))
                else:
                    added += 1
                    cursor = conn.execute(
                        "INSERT INTO memories(file, mtime_ns, size, name, description, type, nested_type, modified_ms, "
                        "expires, preview, body, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (rel, *values),
                    )
                    rowid = int(cursor.lastrowid or 0)
                conn.execute(
                    "INSERT INTO memories_fts(rowid, name, description, body) VALUES (?, ?, ?, ?)",
                    (rowid, *map(spaced_pairs, (header.name or "", header.description or "", body))),
                )
                known[rel] = header
                stamps[rel] = (rowid, st.st_mtime_ns, st.st_size)
        if removed or changes:
            self._ordered = None
        self._dir_mtimes = dirs
        self._last_full = self.clock()
        return RefreshStats(
            added=added,
            updated=updated,
            removed=len(removed),
            unchanged=unchanged,
            skipped=skipped,
            seconds=time.perf_counter() - started,
        )

    def _delete(self, conn: sqlite3.Connection, file: str) -> None:
        rowid = self._stamps.pop(file)[0]
        conn.execute("DELETE FROM memories_fts WHERE rowid=?", (rowid,))
        conn.execute("DELETE FROM memories WHERE id=?", (rowid,))
        conn.execute("DELETE FROM analyses WHERE path=?", (os.path.join(self.root, file),))
        if self._headers is not None:
            self._headers.pop(file, None)

    def refresh(self) -> RefreshStats:
        """Bring the index in step with the directory now: one ``stat`` per file, reads only for changes."""
        with self._lock:
            return self._run(self._refresh)

    def _stale(self) -> bool:
        if self._headers is None or self._last_full is None:
            return True
        if self.clock() - self._last_full >= self.refresh_interval:
            return True
        for rel, mtime in self._dir_mtimes.items():
            try:
                if os.stat(os.path.join(self.root, rel) if rel else self.root).st_mtime_ns != mtime:
                    return True
            except OSError:
                return True
        return False

    def ensure_fresh(self) -> RefreshStats | None:
        """Refresh when a directory changed or the refresh interval passed; None when nothing was needed."""
        with self._lock:
            if not self._stale():
                return None
            return self.refresh()

    def rebuild(self) -> RefreshStats:
        """Drop everything (vectors included) and index the directory from scratch."""
        with self._lock:
            self.close()
            self._discard_files()
            self._headers = self._ordered = None
            return self.refresh()

    # -- reading ---------------------------------------------------------------------------
    def headers(self) -> list[MemoryHeader]:
        """Every memory header, newest first (ties by file name); the same list object until a change."""
        with self._lock:
            self.ensure_fresh()
            if self._ordered is None:
                assert self._headers is not None
                self._ordered = sorted(self._headers.values(), key=lambda h: (-h.mtime_ms, h.filename))
            return self._ordered

    def __len__(self) -> int:
        return len(self.headers())

    def body(self, file: str) -> str | None:
        """The indexed body text of a memory (frontmatter removed, at most 32 KB), or None."""
        row: Any = self._run(lambda conn: conn.execute("SELECT body FROM memories WHERE file=?", (file,)).fetchone())
        return None if row is None else str(row[0])

    def search(self, query: str, *, limit: int = 50) -> list[tuple[str, float]]:
        """FTS5 bm25 over name, description and body (weighted), best first: (file, score > 0)."""
        match = _fts_query(query)
        if not match:
            return []
        self.ensure_fresh()
        sql = (
            "SELECT m.file, -bm25(memories_fts, ?, ?, ?) AS score FROM memories_fts "
            "JOIN memories m ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? ORDER BY score DESC LIMIT ?"
        )
        rows: list[Any] = self._run(lambda conn: conn.execute(sql, (*FTS_WEIGHTS, match, limit)).fetchall())
        return [(str(file), float(score)) for file, score in rows]


class IndexedMemoryDir(MemoryDir):
    """A :class:`MemoryDir` whose scans come from the derived index: for stores of thousands of memories."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        index: MemoryIndex,
        lock_timeout: float = 10.0,
        scan_cap: int | None = MAX_MEMORY_FILES,
        write_guards: Sequence[WriteGuard] = (),
        index_read_only: str | None = None,
        layout: FrontmatterLayout | None = None,
        stamp: Callable[[], str] | None = None,
        index_check: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__(
            root,
            lock_timeout=lock_timeout,
            scan_cap=scan_cap,
            write_guards=write_guards,
            index_read_only=index_read_only,
            layout=layout,
            stamp=stamp,
            index_check=index_check,
        )
        self.index = index

    def scan(self) -> list[MemoryHeader]:
        headers = self.index.headers()
        return headers if self.scan_cap is None else headers[: self.scan_cap]

    def list(self) -> list[MemoryHeader]:
        return list(self.index.headers())
