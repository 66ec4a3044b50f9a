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
:meth:`MemoryIndex.refresh`). A fresh process catching up a small store compares every file's
stat with one stored signature (:mod:`memdir.store.index_catchup`), after its answer in the
prompt hook.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
import sqlite3
import time
from _thread import RLock
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, TypeVar

from memdir.containment import normalize_root
from memdir.errors import MemoryFormatError
from memdir.model.analysis import spaced_pairs
from memdir.model.frontmatter import decode_memory_bytes, normalize_newlines
from memdir.model.memory_type import FrontmatterLayout, parse_memory_type
from memdir.model.patterns import LazyPattern
from memdir.model.sha256 import sha256_hex
from memdir.store.directory import MemoryDir, WriteGuard
from memdir.store.files import create_private_file, ensure_dir, read_bytes_limited
from memdir.store.index_catchup import CatchUp
from memdir.store.ranker_caches import CACHE_SCHEMA, RankerCaches
from memdir.store.scan import (
    MAX_MEMORY_FILES,
    MemoryHeader,
    iter_memory_paths,
    read_header,
    scan_memory_files,
    subject_key,
)
from memdir.store.watch_marks import changes_seen

__all__ = ["SCHEMA_VERSION", "IndexedMemoryDir", "MemoryIndex", "RefreshStats", "index_path"]

# 2: headers read the type nested under metadata:; 3: Chinese, Japanese, Korean and Thai text is
# indexed as pairs of characters (spaced_pairs); 4: headers keep whether the type came from
# metadata: (nested_type), which releases before 2.1.330 do not read; 5: headers keep the
# frontmatter's modified: time and expires: date; 6: each file's inode (a file replaced by a rename
# gets a new one), an index on mtime for the newest memories, and the stored lexical postings;
# 7: each memory's frontmatter text beside its body, so a store can read values without the files.
# 8: headers keep the memories a frontmatter's replaces: and distinct-from: name, and names are
# indexed (to count them), and so are the few memories that record replacing others.
SCHEMA_VERSION = "9"
# A never-built index of at most this many memories is built inside the prompt (a tenth of a
# second); a larger one in the background while recall answers from the newest memories.
INLINE_BUILD = 300
# Field weights for FTS5's bm25(): name, description, body (the same order of importance as recall's).
FTS_WEIGHTS = (2.5, 3.0, 1.0)
_BODY_CHARS = 32 * 1024
_FRONTMATTER = LazyPattern(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_T = TypeVar("_T")
_STAMPS = "SELECT id, file, mtime_ns, size FROM memories"
_HEADER_COLUMNS = (
    "file, mtime_ns, size, name, description, type, nested_type, preview, modified_ms, expires, replaces, distinct_from"
)
_BUMP_GENERATION = (
    "INSERT INTO meta VALUES ('generation', '1') "
    "ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
)

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
    replaces TEXT NOT NULL DEFAULT '',
    distinct_from TEXT NOT NULL DEFAULT '',
    preview TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL,
    ino INTEGER NOT NULL DEFAULT 0,
    front TEXT NOT NULL DEFAULT '',
    subject TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS memories_newest ON memories(mtime_ns);
CREATE INDEX IF NOT EXISTS memories_subject ON memories(subject);
CREATE INDEX IF NOT EXISTS memories_replacing ON memories(id) WHERE replaces != '';
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(name, description, body, tokenize='porter unicode61');
"""
# The tables of what rankers keep beside the rows (analyses, vectors) are declared with the SQL that
# uses them: :mod:`memdir.store.ranker_caches` (created here with the rows'), and the stored
# lexical postings' in :mod:`memdir.recall.stored_lexical` (created on their first use).


def index_path(memory_dir: str, home: str) -> str:
    """``<home>/memdir/index/<sha256 of the directory, 16 hex>.sqlite3``, ``home`` being the config home."""
    root = normalize_root(memory_dir)
    digest = sha256_hex(root.encode("utf-8"))[:16]
    return os.path.join(home, "memdir", "index", f"{digest}.sqlite3")


class RefreshStats(NamedTuple):
    """What one refresh did (a NamedTuple: the prompt hook imports this module, never dataclasses)."""

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


class MemoryIndex(CatchUp, RankerCaches):
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
        self._lock = RLock()
        self._conn: sqlite3.Connection | None = None
        self._headers: dict[str, MemoryHeader] | None = None
        self._stamps: dict[str, tuple[int, int, int]] = {}  # file -> (row id, mtime_ns, size)
        self._stamps_loaded = False
        self._ordered: list[MemoryHeader] | None = None
        self._dir_mtimes: dict[str, int] = {}
        self._last_full: float | None = None
        self._watch_mark: int | None = None  # what a watch had heard at the last full refresh (watch_marks)
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
                conn.executescript(_SCHEMA + CACHE_SCHEMA)
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
            self._stamps, self._stamps_loaded = {}, False
            raise

    def _run(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        with self._lock:
            try:
                with self._recovering() as conn:
                    return step(conn)
            except sqlite3.DatabaseError:
                with self._recovering() as conn:
                    if not self._stamps_loaded:
                        self._refresh(conn)
                    return step(conn)

    # -- refresh ---------------------------------------------------------------------------
    def _read(self, rel: str, st: os.stat_result) -> tuple[MemoryHeader, str, str] | None:
        """(header, frontmatter text, body) of one file, the body cut at 32 KB."""
        path = os.path.join(self.root, rel)
        try:
            header = read_header(path, filename=rel, mtime_ms=st.st_mtime_ns / 1e6, size=st.st_size)
            text = normalize_newlines(decode_memory_bytes(read_bytes_limited(path), path=path))
        except (OSError, MemoryFormatError):
            return None
        match = _FRONTMATTER.match(text)
        body = text[match.end() :] if match else text
        return header, text[: match.end()] if match else "", body[:_BODY_CHARS]

    def row_header(self, row: Sequence[Any]) -> MemoryHeader:
        """A header from ``file, mtime_ns, size, name, description, type, nested_type, preview,
        modified_ms, expires, replaces, distinct`` (the last four may be left off; a relation is its
        targets one per line)."""
        file, mtime_ns, size, name, description, kind, nested, preview = row[:8]
        modified, expires, replaces, distinct = row[8:12] if len(row) > 8 else (None, None, "", "")
        return MemoryHeader(
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
            replaces=tuple(replaces.split("\n")) if replaces else (),
            distinct=tuple(distinct.split("\n")) if distinct else (),
        )

    def _load_stamps(self, conn: sqlite3.Connection) -> dict[str, tuple[int, int, int]]:
        if self._stamps_loaded:
            return self._stamps
        self._stamps = {file: (rowid, m, z) for rowid, file, m, z in conn.execute(_STAMPS)}
        self._stamps_loaded = True
        return self._stamps

    def _load_headers(self, conn: sqlite3.Connection) -> dict[str, MemoryHeader]:
        rows = conn.execute(f"SELECT {_HEADER_COLUMNS} FROM memories")
        return {row[0]: self.row_header(row) for row in rows}

    def _write_file(self, conn: sqlite3.Connection, rel: str, st: os.stat_result) -> str:
        """Store one changed file's row and full-text entry: 'added', 'updated' or 'skipped'."""
        stamps = self._stamps
        read = self._read(rel, st)
        if read is None:
            if rel in stamps:
                self._delete(conn, rel)
            return "skipped"
        header, front, body = read
        digest = sha256_hex(body.encode("utf-8"))[:32]
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
            "\n".join(header.replaces),
            "\n".join(header.distinct),
            header.preview,
            body,
            digest,
            st.st_ino,
            front,
            subject_key(header),
        )
        outcome = "updated" if rel in stamps else "added"
        if rel in stamps:
            rowid = stamps[rel][0]
            conn.execute(
                "UPDATE memories SET mtime_ns=?, size=?, name=?, description=?, type=?, nested_type=?, "
                "modified_ms=?, expires=?, replaces=?, distinct_from=?, preview=?, body=?, hash=?, ino=?, front=?, "
                "subject=? WHERE id=?",
                (*values, rowid),
            )
            conn.execute("DELETE FROM memories_fts WHERE rowid=?", (rowid,))
        else:
            cursor = conn.execute(
                "INSERT INTO memories(file, mtime_ns, size, name, description, type, nested_type, modified_ms, "
                "expires, replaces, distinct_from, preview, body, hash, ino, front, subject) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (rel, *values),
            )
            rowid = int(cursor.lastrowid or 0)
        conn.execute(
            "INSERT INTO memories_fts(rowid, name, description, body) VALUES (?, ?, ?, ?)",
            (rowid, *map(spaced_pairs, (header.name or "", header.description or "", body))),
        )
        if self._headers is not None:
            self._headers[rel] = header
        stamps[rel] = (rowid, st.st_mtime_ns, st.st_size)
        return outcome

    def _apply(
        self, conn: sqlite3.Connection, changes: Sequence[tuple[str, os.stat_result]], removed: Sequence[str]
    ) -> dict[str, int]:
        """Write ``changes`` and delete ``removed`` in one transaction; counts by outcome."""
        counts = {"added": 0, "updated": 0, "skipped": 0}
        with conn:
            for file in removed:
                self._delete(conn, file)
            for done, (rel, st) in enumerate(changes, start=1):
                if self.on_progress is not None:
                    self.on_progress(done, len(changes))
                counts[self._write_file(conn, rel, st)] += 1
            if changes or removed:
                conn.execute(_BUMP_GENERATION)
                self._ordered = None
        return counts

    def _refresh(self, conn: sqlite3.Connection) -> RefreshStats:
        started = time.perf_counter()
        self._watch_mark = changes_seen(self.root)  # before listing: a change heard meanwhile counts
        stamps = self._load_stamps(conn)
        unchanged = 0
        seen: set[str] = set()
        dirs: dict[str, int] = {}
        changes: list[tuple[str, os.stat_result]] = []
        listing = list(iter_memory_paths(self.root, dirs=dirs))
        for rel, st in listing:
            seen.add(rel)
            previous = stamps.get(rel)
            if previous is not None and previous[1:] == (st.st_mtime_ns, st.st_size):
                unchanged += 1
            else:
                changes.append((rel, st))
        removed = [file for file in stamps if file not in seen]
        counts = self._apply(conn, changes, removed)
        changed = bool(changes or removed) or dirs != self._dir_mtimes or self._last_full is None
        self._record_listing(conn, listing, dirs, len(stamps), changed=changed)
        self._dir_mtimes = dirs
        self._last_full = self.clock()
        return RefreshStats(
            added=counts["added"],
            updated=counts["updated"],
            removed=len(removed),
            unchanged=unchanged,
            skipped=counts["skipped"],
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
        if not self._stamps_loaded or self._last_full is None:
            return True
        if self.clock() - self._last_full >= self.refresh_interval:
            # The timed refresh notices edits in place; a healthy watch that heard nothing since the
            # last one (the web view's) says there are none, and the directories are checked below.
            heard = changes_seen(self.root)
            if heard is None or heard != self._watch_mark:
                return True
        if "" not in self._dir_mtimes:  # the directory did not exist at the last refresh
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
            self._stamps, self._stamps_loaded = {}, False
            return self.refresh()

    # -- reading ---------------------------------------------------------------------------
    def headers(self) -> list[MemoryHeader]:
        """Every memory header, newest first (ties by file name); the same list object until a change."""
        with self._lock:
            self.ensure_fresh()
            if self._ordered is None:
                if self._headers is None:
                    self._headers = self._run(self._load_headers)
                self._ordered = sorted(self._headers.values(), key=lambda h: (-h.mtime_ms, h.filename))
            return self._ordered

    def __len__(self) -> int:
        return len(self.headers())

    def body(self, file: str) -> str | None:
        """The indexed body text of a memory (frontmatter removed, at most 32 KB), or None."""
        row: Any = self._run(lambda conn: conn.execute("SELECT body FROM memories WHERE file=?", (file,)).fetchone())
        return None if row is None else str(row[0])

    def texts(self, files: Sequence[str]) -> dict[str, tuple[int, int, str]]:
        """The whole text of each of ``files`` as the index read it (frontmatter and body), with the
        ``(mtime_ns, size)`` it was read at: what a store reads values from without opening the
        files. A file whose body the index cut (over 32 KB), or that it does not hold, is left out;
        the caller reads it."""
        wanted = list(dict.fromkeys(files))

        def read(conn: sqlite3.Connection) -> dict[str, tuple[int, int, str]]:
            found: dict[str, tuple[int, int, str]] = {}
            for start in range(0, len(wanted), 500):  # under SQLite's oldest limit on parameters
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT file, mtime_ns, size, front, body FROM memories WHERE file IN ({marks})", chunk
                )
                for file, mtime_ns, size, front, body in rows:
                    if len(body) < _BODY_CHARS:
                        found[file] = (int(mtime_ns), int(size), front + body)
            return found

        return self._run(read)

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


def _at_most(root: str, limit: int) -> bool:
    """Whether the directory holds at most ``limit`` Markdown files, counted from listings alone
    (no ``stat``) and stopping as soon as there are more."""
    seen = 0
    stack = [root]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.name.endswith(".md"):
                    seen += 1
                    if seen > limit:
                        return False
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return True


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
        scan_cache_file: str | None = None,
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
            scan_cache_file=scan_cache_file,
        )
        self.index = index

    def scan(self) -> list[MemoryHeader]:
        headers = self.index.headers()
        return headers if self.scan_cap is None else headers[: self.scan_cap]

    def headers(self) -> list[MemoryHeader]:
        return list(self.index.headers())

    def ranked_store(self, *, defer_work: bool = False) -> MemoryIndex | None:
        """The index, when recall covers the whole store (no scan cap) and the index is built and
        caught up (:meth:`MemoryIndex.catch_up`). An index never built is built here, unless the
        caller defers work (``defer_work``, the prompt hook): then None, and recall answers from
        :meth:`recall_scan` while a background process builds it."""
        if self.scan_cap is not None:
            return None
        if self.index.catch_up(defer_work=defer_work):
            return self.index
        if defer_work and not _at_most(self.root, INLINE_BUILD):
            self.index.background_due = True
            return None
        self.index.refresh()
        return self.index

    def recall_scan(self, *, defer_work: bool = False) -> builtins.list[MemoryHeader]:
        """With an index not built yet and work deferred, the newest memories by a plain scan (what
        Claude Code considers), so a first prompt never waits for a build; else :meth:`scan`."""
        if self.scan_cap is None and defer_work and not self.index.ready() and not _at_most(self.root, INLINE_BUILD):
            self.index.background_due = True
            return scan_memory_files(self.root, max_files=MAX_MEMORY_FILES, cache=self.scan_cache)
        return self.scan()
