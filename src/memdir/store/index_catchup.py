"""How a fresh process brings a large derived index up to date without a ``stat`` per file.

Every Claude Code hook is a new process. A full refresh stats every memory file (over a second
at 100,000 memories on a busy machine), so a prompt cannot wait for one. Instead a fresh process
stats the directories the last refresh saw: an added, removed, renamed or atomically replaced
file (memdir's own writes, ``mv``, most editors' saves) changes its directory's mtime. In a
changed directory it lists the names and inodes (no ``stat``: the listing carries both) and
reads only the files that are new or whose inode changed. A file rewritten in place keeps its
name, inode and directory mtime; the next full refresh sees it, which the caller runs in the
background when the last one is older than the refresh interval (:attr:`CatchUp.full_due`).

Small stores (:data:`SMALL_STORE` memories or fewer) also compare one signature of every file's
name, mtime and size (:func:`stat_signature`), which notices an edit in place: a ``stat`` per
file, a few milliseconds at 2,000 memories. A caller that cannot wait (``defer_work``, the prompt
hook) takes the directory check before it answers and that one after (:attr:`CatchUp.verify_due`,
:meth:`CatchUp.verify`), so an edit in place shows at the next prompt.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from memdir.store.scan import LOGS_DIRNAME, MemoryHeader, entry_stat, iter_memory_paths

__all__ = ["SMALL_STORE", "CatchUp", "signature_of", "stat_signature"]

# Up to this many memories a fresh process checks every file's stat (a few milliseconds); above
# it, only the directories' mtimes and, in a changed directory, the names and inodes it lists.
SMALL_STORE = 5000
_T = TypeVar("_T")
_HEADER_COLUMNS = (
    "id, file, mtime_ns, size, name, description, type, nested_type, preview, modified_ms, expires, replaces, "
    "distinct_from"
)


def signature_of(stats: Iterable[tuple[str, os.stat_result]]) -> str:
    """One value for a whole listing of (file, stat): the count and a sum of CRCs of each file's
    name, mtime and size, so that an unchanged store is recognised without loading what the index
    stored for each file (the order of the listing does not matter)."""
    count = total = 0
    for rel, st in stats:
        count += 1
        total += zlib.crc32(f"{rel}\0{st.st_mtime_ns}\0{st.st_size}".encode())
    return f"{count}:{total}"


def stat_signature(root: str) -> str:
    """:func:`signature_of` the memory files under ``root`` as they are now (one ``stat`` each)."""
    return signature_of(iter_memory_paths(root))


class CatchUp(ABC):
    """The fresh-process side of :class:`memdir.store.index_db.MemoryIndex`."""

    root: str
    refresh_interval: float
    # Set by :meth:`catch_up`: the last full refresh is older than the refresh interval, so files
    # rewritten in place may be missed until one runs (the prompt hook starts it in the background).
    full_due: bool = False
    # Set when deferred work is waiting: the prompt hook then starts ``memdir reindex --background``.
    background_due: bool = False
    # Set by :meth:`catch_up` on a small store whose work is deferred: only the directories were
    # checked, and the caller runs :meth:`verify` (every file's stat) once it has answered.
    verify_due: bool = False

    @abstractmethod
    def _run(self, step: Callable[[sqlite3.Connection], _T]) -> _T: ...

    @abstractmethod
    def _load_stamps(self, conn: sqlite3.Connection) -> dict[str, tuple[int, int, int]]: ...

    @abstractmethod
    def _apply(
        self, conn: sqlite3.Connection, changes: Sequence[tuple[str, os.stat_result]], removed: Sequence[str]
    ) -> dict[str, int]: ...

    @abstractmethod
    def row_header(self, row: Sequence[Any]) -> MemoryHeader: ...

    @abstractmethod
    def refresh(self) -> Any: ...

    def transact(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``step`` on the index's connection (rebuilding a damaged database once): for the
        caches other layers keep in the same database, such as the stored lexical postings."""
        return self._run(step)

    def _meta(self) -> dict[str, str]:
        return self._run(lambda conn: {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")})

    def ready(self) -> bool:
        """Whether a full refresh has ever finished: the index holds the whole store."""
        return self._meta().get("complete") == "1"

    def generation(self) -> int:
        """A number that changes whenever a refresh changed a memory row (caches built on the rows compare it)."""
        return int(self._meta().get("generation", "0"))

    def _record_listing(
        self,
        conn: sqlite3.Connection,
        listing: Iterable[tuple[str, os.stat_result]],
        dirs: dict[str, int],
        count: int,
        *,
        changed: bool,
    ) -> None:
        """What a fresh process checks after a full refresh (the directories' mtimes, the time, the
        count and the signature of every file's stat); written only when ``changed`` or when the
        time of this full refresh matters (a large store, whose processes skip the full refresh)."""
        if not changed and count <= SMALL_STORE:
            return
        with conn:
            conn.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                [
                    ("dirs", json.dumps(dirs)),
                    ("full_at", repr(time.time())),
                    ("count", str(count)),
                    ("signature", signature_of(listing)),
                    ("complete", "1"),
                ],
            )

    def catch_up(self, *, defer_work: bool = False) -> bool:
        """Bring a built index up to date as cheaply as its size allows; False when it was never built
        (the caller then answers without it and has it built, see the prompt hook). ``defer_work``:
        the caller answers now (the prompt hook), so a small store's check of every file is left for
        after the answer (:attr:`verify_due`) and a due full refresh to the background (:attr:`full_due`)."""
        meta = self._meta()
        if meta.get("complete") != "1":
            return False
        small = int(meta.get("count", "0")) <= SMALL_STORE
        if small and not defer_work:
            self.verify(meta)
            self.full_due = False
            return True
        try:
            dirs: dict[str, int] = json.loads(meta.get("dirs", "{}"))
            full_at = float(meta.get("full_at", "0"))
        except ValueError:
            dirs, full_at = {}, 0.0
        changed = []
        for rel, mtime in dirs.items():
            try:
                if os.stat(os.path.join(self.root, rel)).st_mtime_ns != mtime:
                    changed.append(rel)
            except OSError:
                changed.append(rel)
        if changed:
            self._run(lambda conn: self._sync_dirs(conn, changed, dirs))
        if small:
            self.verify_due = True
            self.full_due = False
            return True
        self.full_due = time.time() - full_at >= self.refresh_interval
        if self.full_due and not defer_work:
            self.refresh()
            self.full_due = False
        self.background_due = self.background_due or self.full_due
        return True

    def verify(self, meta: dict[str, str] | None = None) -> bool:
        """Compare every memory file's name, mtime and size with what the last full refresh saw
        (one stored signature, no per-file rows) and refresh when they differ: what notices a
        file rewritten in place. True when that refresh changed a row."""
        self.verify_due = False
        if meta is None:
            meta = self._meta()
        if meta.get("signature") == stat_signature(self.root):
            return False
        return bool(self.refresh().changed)

    def _sync_dirs(self, conn: sqlite3.Connection, changed: list[str], dirs: dict[str, int]) -> None:
        """Re-list the changed directories; read only new files and files with a new inode."""
        stamps = self._load_stamps(conn)
        inodes = {str(f): int(i) for f, i in conn.execute("SELECT file, ino FROM memories")}
        wanted = set(changed)
        listed: set[str] = set()
        changes: list[tuple[str, os.stat_result]] = []
        fresh_dirs: dict[str, int] = {}
        real_root = os.path.realpath(self.root)
        for rel_dir in changed:
            base = os.path.join(self.root, rel_dir)
            try:
                fresh_dirs[rel_dir] = os.stat(base).st_mtime_ns
                entries = list(os.scandir(base))
            except OSError:
                continue  # gone: its files are removed below
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        if rel not in dirs and rel != LOGS_DIRNAME:  # a new folder: walk it whole
                            for sub, st in iter_memory_paths(self.root, dirs=fresh_dirs, start=rel):
                                listed.add(sub)
                                changes.append((sub, st))
                        continue
                    if not entry.is_symlink() and inodes.get(rel) == entry.inode() and entry.name.endswith(".md"):
                        listed.add(rel)
                        continue
                    found = entry_stat(entry, real_root)
                    if found is not None:
                        listed.add(rel)
                        if stamps.get(rel, (0, 0, 0))[1:] != (found.st_mtime_ns, found.st_size):
                            changes.append((rel, found))
        removed = [
            file for file in stamps if file not in listed and (file.rsplit("/", 1)[0] if "/" in file else "") in wanted
        ]
        self._apply(conn, changes, removed)
        dirs = {rel: mtime for rel, mtime in dirs.items() if rel in fresh_dirs or rel not in wanted}
        dirs.update(fresh_dirs)
        with conn:
            conn.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", [("dirs", json.dumps(dirs)), ("count", str(len(stamps)))]
            )

    # -- reading a few rows ----------------------------------------------------------------
    def _rows_where(self, column: str, keys: Sequence[Any]) -> list[Any]:
        """Header rows (id first) whose ``column`` is one of ``keys``, in chunks SQLite accepts."""
        rows: list[Any] = []
        keys = list(dict.fromkeys(keys))
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            sql = f"SELECT {_HEADER_COLUMNS} FROM memories WHERE {column} IN ({','.join('?' * len(chunk))})"

            def step(conn: sqlite3.Connection, sql: str = sql, chunk: list[Any] = chunk) -> list[Any]:
                return conn.execute(sql, chunk).fetchall()

            rows.extend(self._run(step))
        return rows

    def headers_by_ids(self, ids: Sequence[int]) -> dict[int, MemoryHeader]:
        """The headers of the memories with these row ids (the ones still indexed)."""
        return {int(row[0]): self.row_header(row[1:]) for row in self._rows_where("id", ids)}

    def headers_by_files(self, files: Sequence[str]) -> dict[str, MemoryHeader]:
        """The headers of these files (relative paths), those the index holds."""
        return {str(row[1]): self.row_header(row[1:]) for row in self._rows_where("file", files)}

    def newest(self, count: int) -> list[MemoryHeader]:
        """The ``count`` newest memories, newest first (ties by file name), read from the index alone."""
        sql = f"SELECT {_HEADER_COLUMNS} FROM memories ORDER BY mtime_ns DESC, file LIMIT ?"
        rows = self._run(lambda conn: conn.execute(sql, (count,)).fetchall())
        return [self.row_header(row[1:]) for row in rows]

    def replacing(self) -> list[MemoryHeader]:
        """The memories whose frontmatter records that they replace others (``replaces:``): few in
        any store, so recall finds a replaced memory's replacement without reading the rest."""
        sql = f"SELECT {_HEADER_COLUMNS} FROM memories WHERE replaces != ''"
        rows = self._run(lambda conn: conn.execute(sql).fetchall())
        return [self.row_header(row[1:]) for row in rows]

    def name_counts(self, keys: Sequence[str]) -> dict[str, int]:
        """How many memories have each of ``keys`` as their title's key (:func:`~memdir.store.scan.subject_key`):
        a title many memories hold is a category, not one fact (:mod:`memdir.recall.versions`)."""
        wanted = list(dict.fromkeys(keys))

        def count(conn: sqlite3.Connection) -> dict[str, int]:
            sql = "SELECT COUNT(*) FROM memories WHERE subject = ?"
            return {key: int(conn.execute(sql, (key,)).fetchone()[0]) for key in wanted}

        return self._run(count)

    def count(self) -> int:
        """How many memories the index holds (without loading them)."""
        return int(self._run(lambda conn: conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]))
