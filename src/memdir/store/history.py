"""The local history of one memory directory: every version of every file, who made it and when.

Storage: one SQLite database per memory directory under the config home
(``<configHome>/memdir/history/<directory>-<hash>.sqlite3``, mode 0600 in a 0700 folder), beside
the derived index and outside the memory directory, so Claude Code, scans and team sync never see
it. Chosen over a git repository because a save must stay cheap (a ``git`` process per save costs
more than the save itself; ``bench/history.py`` measures both) and because SQLite in WAL mode
gives crash safety for free: a transaction is either in the database or not, whatever moment the
process is killed. A person can read it without memdir: ``sqlite3 FILE 'select * from versions'``
lists every change, and a version's text is ``zlib`` data in ``blobs``.

Tables: ``blobs`` holds each distinct content once (content-addressed by SHA-256), compressed
with zlib, and when the file's previous full version makes a good dictionary (a memory edited,
``MEMORY.md`` growing by a line) compressed against it (``base`` names that full version, never a
chain, so any version is at most two decompressions away). ``versions`` has one row per change:
file, per-file version number, time, ``by``, run, change (create, edit, delete, rename), content
hash (none for a deletion) and size. ``runs`` names each run (the command or agent run that made
changes) and whether it was undone. ``live`` is what memdir last knew of each file (hash, mtime,
size), which is how a change made by someone else is found and recorded as ``external``.

Crash safety: the store's one write layer (:mod:`memdir.store.files`) calls :meth:`before` just
before it replaces or removes a file, which records the content about to go when it is not yet
recorded, and :meth:`written`/:meth:`removed` just after. A process killed in between leaves the
previous content in the history and the new content in the file; the next catch-up
(:meth:`sync`) records that content as ``external`` (its ``by`` is lost, never its text).

A damaged history never stops a memory write: when SQLite says the database is corrupt or not a
database, it is set aside as ``<name>.damaged-<time>`` (never deleted: ``sqlite3 FILE .recover``
reads what is left), a warning says so once, and a new history starts with the files as they are;
``memdir doctor`` reports the copy, and a damaged database before any write finds it. A history
that went missing or empty is said to start anew too. A history folder memdir cannot write to is
a refusal naming the ``memdir.history`` setting, since what is about to go could not be kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import stat
import time
import zlib
from collections.abc import Iterator
from typing import Any

from memdir.store.files import FILE_MODE, MAX_MEMORY_FILE_BYTES, ensure_dir
from memdir.store.history_records import HistoryError, Run, Version, change_of_run
from memdir.store.history_repair import damaged_copies, recovering, set_aside
from memdir.store.provenance import EXTERNAL, current

__all__ = ["RUN_SYNC_BUDGET", "History"]

log = logging.getLogger("memdir.history")

SCHEMA_VERSION = "1"
# A delta against the previous full version is kept only when it is this much smaller than the
# content compressed alone; otherwise the version is stored whole and becomes the next base.
_DELTA_GAIN = 0.5
_ZDICT_LIMIT = 32 * 1024  # zlib uses at most the last 32 KB of a dictionary
_FOUND = "found by a scan"
# How many changed or new files the catch-up before a run's first write reads at most (see sync).
RUN_SYNC_BUDGET = 200

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs(
    hash TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    base TEXT,
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs(
    id TEXT PRIMARY KEY,
    by TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    started REAL NOT NULL,
    undone_by TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS versions(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    version INTEGER NOT NULL,
    at REAL NOT NULL,
    by TEXT NOT NULL,
    run TEXT NOT NULL,
    change TEXT NOT NULL,
    hash TEXT,
    size INTEGER NOT NULL,
    other TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS versions_file ON versions(file, version);
CREATE INDEX IF NOT EXISTS versions_run ON versions(run);
CREATE TABLE IF NOT EXISTS live(
    file TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS proposals(
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    at REAL NOT NULL,
    by TEXT NOT NULL,
    run TEXT NOT NULL,
    base TEXT,
    hash TEXT,
    state TEXT NOT NULL DEFAULT 'open'
);
"""


_VERSION_COLUMNS = "id, file, version, at, by, run, change, hash, size, other"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_SETTING = "or set memdir.history to false to keep no history"


class History:
    """The history database of one memory directory; also the observer of its writes."""

    def __init__(self, root: str, db_path: str) -> None:
        self.root = os.path.realpath(root)
        self.path = db_path
        self._conn: sqlite3.Connection | None = None
        self._synced_run: str | None = None
        self._bases: dict[str, bytes] = {}  # a few decompressed base versions, by hash
        self._started_anew = False  # a damaged database was set aside, and that was said

    # -- connection --------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        try:
            ensure_dir(os.path.dirname(self.path))
            fresh = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
            if fresh:
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
        except OSError as exc:
            raise HistoryError(
                f"the history of {self.root} cannot be kept in {os.path.dirname(self.path)} "
                f"({exc.strerror or exc}); make that folder writable, {_SETTING}",
                rule="history-unavailable",
                path=self.path,
            ) from exc
        try:
            conn = self._open()
        except sqlite3.DatabaseError as exc:
            self._set_aside(str(exc))
            conn = self._open()
        if fresh and not self._started_anew and _walk(self.root):
            log.warning(
                "memdir history: there was no history of %s at %s (never kept, deleted or emptied); a new one "
                "starts now, with the files as they are as their first versions",
                self.root,
                self.path,
            )
        self._conn = conn
        return conn

    def _set_aside(self, reason: str) -> None:
        """Move the damaged database aside (:func:`set_aside`) and leave a new one to be made."""
        self.close()
        self._bases.clear()
        self._synced_run = None
        self._started_anew = True
        set_aside(self.path, reason)

    def damaged_copies(self) -> list[str]:
        """The damaged databases set aside beside this one, oldest first."""
        return damaged_copies(self.path)

    def check(self) -> str | None:
        """What SQLite's ``quick_check`` finds wrong with the database, or None when it reads cleanly."""
        if not os.path.isfile(self.path) or os.path.getsize(self.path) == 0:
            return None
        try:
            rows = self._connect().execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            return str(exc)
        found = [str(row[0]) for row in rows if str(row[0]) != "ok"]
        return "; ".join(found[:3]) or None

    def start_anew(self) -> None:
        """Set the database aside now, as a damaged one is, and start a new one (``doctor --fix``)."""
        self._set_aside(self.check() or "set aside on request")

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL: a commit survives the process being killed at any moment (the WAL is in the
            # file system); only a power loss may drop the last commits, as for any WAL database.
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?), ('root', ?)", (SCHEMA_VERSION, self.root))
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            with contextlib.suppress(sqlite3.Error):  # a damaged database may refuse that too
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- blobs -------------------------------------------------------------------------------
    def _store_blob(self, conn: sqlite3.Connection, file: str, data: bytes) -> str:
        digest = _digest(data)
        if conn.execute("SELECT 1 FROM blobs WHERE hash=?", (digest,)).fetchone() is not None:
            return digest
        packed = zlib.compress(data, 6)
        base_hash = None
        row = conn.execute(
            "SELECT b.hash FROM versions v JOIN blobs b ON b.hash = v.hash "
            "WHERE v.file=? AND b.base IS NULL ORDER BY v.id DESC LIMIT 1",
            (file,),
        ).fetchone()
        if row is not None and len(data) > 64:
            base = self._plain(conn, str(row[0]))
            if base is not None:
                packer = zlib.compressobj(6, zdict=base[-_ZDICT_LIMIT:])
                delta = packer.compress(data) + packer.flush()
                if len(delta) < len(packed) * _DELTA_GAIN:
                    packed, base_hash = delta, str(row[0])
        conn.execute("INSERT INTO blobs VALUES (?, ?, ?, ?)", (digest, len(data), base_hash, packed))
        return digest

    def _plain(self, conn: sqlite3.Connection, digest: str) -> bytes | None:
        cached = self._bases.get(digest)
        if cached is not None:
            return cached
        row = conn.execute("SELECT base, data FROM blobs WHERE hash=?", (digest,)).fetchone()
        if row is None:
            return None
        base, data = row
        if base is None:
            plain = zlib.decompress(data)
        else:
            dictionary = self._plain(conn, str(base))
            if dictionary is None:
                return None
            unpacker = zlib.decompressobj(zdict=dictionary[-_ZDICT_LIMIT:])
            plain = unpacker.decompress(data) + unpacker.flush()
        if base is None:
            if len(self._bases) > 8:
                self._bases.clear()
            self._bases[digest] = plain
        return plain

    # -- recording -----------------------------------------------------------------------------
    def _live(self, conn: sqlite3.Connection, rel: str) -> tuple[str, int, int] | None:
        row = conn.execute("SELECT hash, mtime_ns, size FROM live WHERE file=?", (rel,)).fetchone()
        return None if row is None else (str(row[0]), int(row[1]), int(row[2]))

    def _add_version(
        self,
        conn: sqlite3.Connection,
        rel: str,
        change: str,
        digest: str | None,
        size: int,
        *,
        by: str,
        run: str,
        label: str = "",
        at: float | None = None,
        other: str | None = None,
    ) -> None:
        when = time.time() if at is None else at
        conn.execute("INSERT OR IGNORE INTO runs(id, by, label, started) VALUES (?, ?, ?, ?)", (run, by, label, when))
        row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM versions WHERE file=?", (rel,)).fetchone()
        conn.execute(
            "INSERT INTO versions(file, version, at, by, run, change, hash, size, other) VALUES (?,?,?,?,?,?,?,?,?)",
            (rel, int(row[0]) + 1, when, by, run, change, digest, size, other),
        )

    def _catch_up(self, conn: sqlite3.Connection, rel: str, run: str, by: str = EXTERNAL) -> None:
        """Record what is at ``rel`` now when it is not what memdir last recorded there: a change
        somebody else made (``external``, or ``by`` when the caller knows who)."""
        path = os.path.join(self.root, rel)
        known = self._live(conn, rel)
        try:
            info = os.stat(path)
        except OSError:
            info = None
        if info is None or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MEMORY_FILE_BYTES:
            if known is not None:
                conn.execute("DELETE FROM live WHERE file=?", (rel,))
                self._add_version(conn, rel, "delete", None, 0, by=by, run=run, label=_FOUND)
            return
        if known is not None and known[1:] == (info.st_mtime_ns, info.st_size):
            return
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_MEMORY_FILE_BYTES + 1)
        except OSError:
            return
        digest = _digest(data)
        if known is None or known[0] != digest:
            self._store_blob(conn, rel, data)
            change = "create" if known is None else "edit"
            at = min(time.time(), info.st_mtime)
            self._add_version(conn, rel, change, digest, len(data), by=by, run=run, label=_FOUND, at=at)
        conn.execute("INSERT OR REPLACE INTO live VALUES (?, ?, ?, ?)", (rel, digest, info.st_mtime_ns, info.st_size))

    def _external_run(self) -> str:
        from memdir.store.provenance import new_run_id

        return "ext-" + new_run_id()

    def _known_as_is(self, rel: str) -> bool:
        """Whether ``rel`` is what memdir last recorded there (or absent and never recorded), read
        without taking the database's write lock: then there is nothing to catch up."""
        known = self._live(self._connect(), rel)
        try:
            info = os.stat(os.path.join(self.root, rel))
        except OSError:
            return known is None
        return known is not None and stat.S_ISREG(info.st_mode) and known[1:] == (info.st_mtime_ns, info.st_size)

    def before(self, rel: str) -> None:
        """Keep what is at ``rel`` now, before memdir replaces or removes it."""
        try:
            self._keep(rel)
        except (sqlite3.Error, OSError) as exc:
            raise HistoryError(
                f"the history of {self.root} ({self.path}) could not keep the current version of {rel}, so it "
                f"was not changed: {exc}; make that file and its folder writable, {_SETTING}",
                rule="history-unavailable",
                path=self.path,
            ) from exc

    @recovering
    def _keep(self, rel: str) -> None:
        run = current().run
        if self._synced_run != run:
            # Once per run (a command, an agent run, a tool call), before its first change,
            # memdir looks at the whole directory, so what others changed meanwhile is kept.
            # A directory the history has never seen is recorded a part at a time (see sync).
            self.sync(budget=RUN_SYNC_BUDGET)
            self._synced_run = run
        if self._known_as_is(rel):
            return
        with self._transaction() as conn:
            self._catch_up(conn, rel, self._external_run())

    @recovering
    def refresh_file(self, rel: str) -> None:
        """Record an outside change of one file (cheaper than :meth:`sync` for one memory)."""
        with self._transaction() as conn:
            self._catch_up(conn, rel, self._external_run())

    def written(self, rel: str, data: bytes) -> None:
        """Record the content memdir just wrote at ``rel``."""
        try:
            self._record(rel, data)
        except (sqlite3.Error, OSError, HistoryError) as exc:  # the write happened: the next catch-up records it
            log.warning("memdir history could not record %s: %s", rel, exc)

    @recovering
    def _record(self, rel: str, data: bytes, *, change: str | None = None, other: str | None = None) -> None:
        who = current()
        digest = _digest(data)
        try:
            info: os.stat_result | None = os.stat(os.path.join(self.root, rel))
        except OSError:
            info = None
        with self._transaction() as conn:
            known = self._live(conn, rel)
            if known is None or known[0] != digest or change == "rename":
                self._store_blob(conn, rel, data)
                kind = change or change_of_run(who.label) or ("create" if known is None else "edit")
                self._add_version(
                    conn, rel, kind, digest, len(data), by=who.by, run=who.run, label=who.label, other=other
                )
            if info is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO live VALUES (?, ?, ?, ?)", (rel, digest, info.st_mtime_ns, info.st_size)
                )

    def removed(self, rel: str) -> None:
        """Record that memdir just removed ``rel``."""
        try:
            self._gone(rel, "delete", None)
        except (sqlite3.Error, OSError, HistoryError) as exc:
            log.warning("memdir history could not record the removal of %s: %s", rel, exc)

    @recovering
    def _gone(self, rel: str, change: str, other: str | None) -> None:
        who = current()
        with self._transaction() as conn:
            if self._live(conn, rel) is None:
                return
            conn.execute("DELETE FROM live WHERE file=?", (rel,))
            if change == "delete":
                change = change_of_run(who.label) or change
            self._add_version(conn, rel, change, None, 0, by=who.by, run=who.run, label=who.label, other=other)

    def moved(self, old: str, new: str | None) -> None:
        """Record a rename: the old name is gone, the new one holds the content."""
        try:
            if new is None:
                self._gone(old, "delete", None)
                return
            self._gone(old, "rename", new)
            with open(os.path.join(self.root, new), "rb") as handle:
                data = handle.read(MAX_MEMORY_FILE_BYTES + 1)
            self._record(new, data, change="rename", other=old)
        except (sqlite3.Error, OSError, HistoryError) as exc:
            log.warning("memdir history could not record the move of %s: %s", old, exc)

    @recovering
    def sync(self, *, budget: int | None = None, by: str = EXTERNAL) -> int:
        """Record every change made by someone else since memdir last looked (a whole-directory
        catch-up: one ``stat`` per file, a read only where it changed); returns how many.

        ``by`` names that someone when the caller knows (a coding agent's end-of-turn hook records
        what the turn changed as that agent's: ``codex``, ``gemini``); ``external`` otherwise.

        ``budget`` caps how many changed or new files one call reads: the first look at a large
        directory the history has never seen (10,000 files to read and store) is then spread over
        the runs that follow, each reading its share, instead of falling on one save; the files
        already recorded are checked every time. ``memdir history sync`` has no cap."""
        found = _walk(self.root)
        with self._transaction() as conn:
            before = int(conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0])
            run = self._external_run()
            known = {
                str(row[0]): (int(row[1]), int(row[2])) for row in conn.execute("SELECT file, mtime_ns, size FROM live")
            }
            changed: list[str] = []
            for rel in sorted(found | set(known)):
                stamp = known.get(rel)
                if stamp is not None and rel in found:
                    try:
                        info = os.stat(os.path.join(self.root, rel))
                    except OSError:
                        info = None
                    if info is not None and stat.S_ISREG(info.st_mode) and stamp == (info.st_mtime_ns, info.st_size):
                        continue
                changed.append(rel)
            if budget is not None:
                # The files memdir knows first (an edit or a removal someone made), then new ones.
                changed.sort(key=lambda rel: rel not in known)
                changed = changed[:budget]
            for rel in changed:
                self._catch_up(conn, rel, run, by)
            return int(conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0]) - before

    # -- reading -------------------------------------------------------------------------------
    @recovering
    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Version]:
        return [Version(*row) for row in self._connect().execute(sql, args)]

    def versions(self, file: str | None = None, *, limit: int | None = None, run: str | None = None) -> list[Version]:
        """Changes newest first: of one file, of one run, or of the whole directory."""
        where, args = [], []
        if file is not None:
            where.append("file=?")
            args.append(file)
        if run is not None:
            where.append("run=?")
            args.append(run)
        sql = f"SELECT {_VERSION_COLUMNS} FROM versions"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self._rows(sql, tuple(args))

    def version(self, file: str, number: int) -> Version:
        rows = self._rows(f"SELECT {_VERSION_COLUMNS} FROM versions WHERE file=? AND version=?", (file, number))
        if not rows:
            latest = self.versions(file, limit=1)
            known = f"its versions are 1 to {latest[0].version}" if latest else "it has no recorded versions"
            raise HistoryError(f"{file} has no version {number}; {known} (see 'memdir history {file}')", path=file)
        return rows[0]

    @recovering
    def content(self, digest: str) -> bytes:
        """The bytes of a recorded content."""
        data = self._plain(self._connect(), digest)
        if data is None:
            raise HistoryError(f"the content {digest[:12]} is missing from the history {self.path}")
        return data

    @recovering
    def runs(self, *, limit: int | None = None) -> list[Run]:
        """Runs newest first, each with its count of changes and the files it touched."""
        sql = (
            "SELECT r.id, r.by, r.label, r.started, COUNT(v.id), GROUP_CONCAT(DISTINCT v.file), r.undone_by, "
            "MAX(v.id) AS last FROM runs r JOIN versions v ON v.run = r.id GROUP BY r.id ORDER BY last DESC"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        out = []
        for rid, by, label, started, count, files, undone, _ in self._connect().execute(sql):
            names = tuple(sorted(set(str(files).split(",")))) if files else ()
            out.append(Run(str(rid), str(by), str(label), float(started), int(count), names, undone))
        return out

    @recovering
    def mark_undone(self, run: str, by_run: str) -> None:
        with self._transaction() as conn:
            conn.execute("UPDATE runs SET undone_by=? WHERE id=?", (by_run, run))

    def size_bytes(self) -> int:
        return sum(os.path.getsize(self.path + s) for s in ("", "-wal") if os.path.exists(self.path + s))

    # -- retention -----------------------------------------------------------------------------
    @recovering
    def prune(self, *, keep_days: float | None = None, keep_versions: int | None = None) -> tuple[int, int]:
        """Forget old versions: those older than ``keep_days``, or all but the newest
        ``keep_versions`` of each file. The newest version of every file, and the newest one with
        content, are always kept (so a deleted memory stays restorable). Returns (versions, blobs)
        removed."""
        if (keep_days is None) == (keep_versions is None):
            raise HistoryError("prune needs one of --keep-days D or --keep-versions N")
        with self._transaction() as conn:
            keep = (
                "id IN (SELECT MAX(id) FROM versions GROUP BY file) OR "
                "id IN (SELECT MAX(id) FROM versions WHERE hash IS NOT NULL GROUP BY file)"
            )
            if keep_days is not None:
                cutoff = time.time() - keep_days * 86400
                cursor = conn.execute(f"DELETE FROM versions WHERE at < ? AND NOT ({keep})", (cutoff,))
            else:
                cursor = conn.execute(
                    "DELETE FROM versions WHERE id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER "
                    f"(PARTITION BY file ORDER BY id DESC) AS n FROM versions) WHERE n > ?) AND NOT ({keep})",
                    (int(keep_versions or 0),),
                )
            versions = cursor.rowcount
            blobs = conn.execute(
                "DELETE FROM blobs WHERE hash NOT IN (SELECT hash FROM versions WHERE hash IS NOT NULL) "
                "AND hash NOT IN (SELECT base FROM blobs WHERE base IS NOT NULL AND hash IN "
                "(SELECT hash FROM versions WHERE hash IS NOT NULL)) "
                "AND hash NOT IN (SELECT hash FROM proposals WHERE hash IS NOT NULL)"
            ).rowcount
            conn.execute("DELETE FROM runs WHERE id NOT IN (SELECT run FROM versions)")
        self._bases.clear()
        with contextlib.suppress(sqlite3.Error):
            self._connect().execute("VACUUM")
            self._connect().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return versions, blobs


def _walk(root: str) -> set[str]:
    """Every file under ``root`` that history records: not under a name starting with a dot, not
    through a symlinked directory."""
    found: set[str] = set()
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(folder, d))]
        base = os.path.relpath(folder, root).replace(os.sep, "/")
        for name in filenames:
            if not name.startswith("."):
                found.add(name if base == "." else f"{base}/{name}")
    return found
