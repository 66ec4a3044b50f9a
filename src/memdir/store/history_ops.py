"""What a person does with a memory directory's history: list, show, diff, restore, undo, prune.

:class:`HistoryView` binds a :class:`~memdir.store.history.History` to its
:class:`~memdir.store.directory.MemoryDir` (``memory_dir.history``), so that a restore or an undo
writes through the store like any other change: under the directory's lock, through its write
guards, with ``MEMORY.md`` kept in step, and recorded as a new version (a restore never rewrites
the past, so a restore can itself be undone). What it uses of the directory is :class:`HistoryDir`,
so that this module, which the directory's ``history`` property imports, does not import it back.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from memdir.errors import MemdirError, MemoryNotFound
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.memory import Memory
from memdir.store.history import History
from memdir.store.history_records import HistoryError, Run, Version, iso_time
from memdir.store.lookup import Findable, find_memory, suggest
from memdir.store.provenance import EXTERNAL, acting_as, current

__all__ = [
    "HistoryDir",
    "HistoryView",
    "UndoReport",
    "follow_index",
    "history_of",
    "provenance_json",
    "provenance_line",
    "put_file",
]

UNDO_LABEL = "undo"


class HistoryDir(Findable, Protocol):
    """What a restore or an undo uses of a memory directory (:class:`memdir.store.directory.MemoryDir`):
    its reads, its guarded writes, its lock and its ``MEMORY.md`` upkeep."""

    lock_timeout: float
    index_read_only: str | None

    def read_text(self, file: str) -> str: ...

    def write_text(self, file: str, content: str) -> str: ...

    def check_removal(self, path: str) -> None: ...

    def index_for(self, rel: str) -> tuple[str, str]: ...

    def rewrite_index(self, change: Callable[[str], str], *, index_path: str | None = None) -> bool: ...


def history_of(memory_dir: HistoryDir) -> HistoryView | None:
    """The history of ``memory_dir``, or None when none is kept (``memdir.history`` false, or a
    directory opened without a configuration)."""
    from memdir.store.files import observer_for

    found = observer_for(memory_dir.root)
    return HistoryView(memory_dir, found) if isinstance(found, History) else None


def provenance_json(memory_dir: HistoryDir, file: str) -> dict[str, object]:
    """``{"origin", "lastChange"}`` of a file (see :meth:`HistoryView.provenance`); both None when
    the directory keeps no history."""
    view = history_of(memory_dir)
    return view.provenance(file) if view is not None else {"origin": None, "lastChange": None}


def provenance_line(memory_dir: HistoryDir, file: str) -> str:
    """One line for a person: ``created by cli at …; last changed by extract:… at … (version 3)``."""
    found = provenance_json(memory_dir, file)
    origin, last = found["origin"], found["lastChange"]
    parts = []
    if isinstance(origin, dict):
        parts.append(f"created by {origin['by']} at {origin['at']}")
    if isinstance(last, dict) and last != origin:
        parts.append(f"last changed by {last['by']} at {last['at']}")
    if isinstance(last, dict):
        parts.append(f"version {last['version']}")
    return "; ".join(parts)


def put_file(memory_dir: HistoryDir, rel: str, text: str | None) -> None:
    """Make ``rel`` hold ``text`` (remove it for None) through the store, so the change is guarded,
    locked and recorded; nothing is written when it already holds it."""
    from memdir.store.files import remove_file

    if text is None:
        path = memory_dir.resolve(rel)
        if os.path.lexists(path):
            memory_dir.check_removal(path)
            remove_file(path)
        return
    try:
        if memory_dir.read_text(rel) == text:
            return
    except MemdirError:
        pass
    memory_dir.write_text(rel, text)


def follow_index(memory_dir: HistoryDir, rel: str) -> None:
    """Give a restored topic file its index line (or take away a removed one's)."""
    if not rel.endswith(".md") or os.path.basename(rel) == ENTRYPOINT_NAME:
        return
    if memory_dir.index_read_only is not None:
        return
    from memdir.model.index import IndexEntry, remove_entry, upsert_entry
    from memdir.model.memory import Memory

    index_path, target = memory_dir.index_for(rel)
    if not memory_dir.exists(rel):
        memory_dir.rewrite_index(lambda text: remove_entry(text, target), index_path=index_path)
        return
    try:
        memory = Memory.parse(memory_dir.read_text(rel))
    except MemdirError:
        return
    if not (memory.name and memory.description) or "\n" in memory.description:
        return
    entry = IndexEntry(title=memory.name, file=target, hook=memory.description)
    try:
        memory_dir.rewrite_index(lambda text: upsert_entry(text, entry), index_path=index_path)
    except MemdirError:
        pass  # an index too full for the release in use: the memory is back, recall finds it


@dataclass(frozen=True)
class UndoReport:
    """What an undo did: files put back as they were before the run, and files left alone
    because something changed them after the run (each with that later change)."""

    run: str
    undo_run: str
    restored: tuple[str, ...] = ()
    conflicts: tuple[Version, ...] = field(default=())


class HistoryView:
    """The history of one memory directory, as its store's Python API (``memory_dir.history``)."""

    def __init__(self, memory_dir: HistoryDir, history: History) -> None:
        self.memory_dir = memory_dir
        self.db = history

    @property
    def path(self) -> str:
        return self.db.path

    def sync(self, *, by: str | None = None) -> int:
        """Record what others changed since memdir last looked, as ``by`` when the caller knows
        who (else ``external``); returns how many changes."""
        return self.db.sync() if by is None else self.db.sync(by=by)

    def _rel(self, file: str) -> str:
        return self.memory_dir.relative(self.memory_dir.resolve(file))

    def find(self, given: str) -> str:
        """The file ``given`` names, as ``memdir show`` and ``rm`` take names (with or without
        ``.md``, or a title), on disk or only in the history: a deleted memory keeps its name and
        its last title. Raises :class:`MemoryNotFound` with the nearest names."""
        try:
            return find_memory(self.memory_dir, given)
        except MemoryNotFound:
            pass
        rows = self.versions()
        files = list(dict.fromkeys(row.file for row in rows))  # newest first
        text = given.strip().removeprefix(self.memory_dir.path)
        for candidate in (text, f"{text}.md"):
            if candidate in files:
                return candidate
        titles = self._deleted_titles(rows)
        lowered = text.casefold()
        for title, rel in titles.items():
            if title.strip().casefold() == lowered:
                return rel
        names = [rel.removesuffix(".md") for rel in files] + list(titles)
        hint = suggest(text.removesuffix(".md"), names)
        raise MemoryNotFound(f"no memory {given!r} in {self.memory_dir.root} or its history{hint}", path=given)

    def _deleted_titles(self, rows: list[Version]) -> dict[str, str]:
        """The last title of every file that is gone now, from its last version with content."""
        latest: dict[str, Version] = {}
        content: dict[str, Version] = {}
        for row in rows:  # newest first
            latest.setdefault(row.file, row)
            if row.hash is not None:
                content.setdefault(row.file, row)
        titles: dict[str, str] = {}
        for rel, row in latest.items():
            kept = content.get(rel)
            if row.hash is not None or kept is None or kept.hash is None:
                continue
            name = Memory.parse(self.db.content(kept.hash).decode("utf-8", errors="replace")).name
            if name:
                titles.setdefault(name, rel)
        return titles

    def deleted_version(self, file: str) -> int | None:
        """The version a restore of ``file`` brings back when it is gone (its last version with
        content); None when the file is there, or has no content recorded."""
        rel = self._rel(file)
        rows = self.versions(rel)
        if not rows or rows[0].hash is not None or os.path.lexists(self.memory_dir.resolve(rel)):
            return None
        return next((row.version for row in rows if row.hash is not None), None)

    def versions(self, file: str | None = None, *, limit: int | None = None, run: str | None = None) -> list[Version]:
        """Changes newest first (of one file, one run, or all), after recording external ones."""
        self.sync()
        return self.db.versions(None if file is None else self._rel(file), limit=limit, run=run)

    def runs(self, *, limit: int | None = None) -> list[Run]:
        self.sync()
        return self.db.runs(limit=limit)

    def text(self, file: str, version: int) -> str:
        """The text of ``file`` as its version ``version`` left it."""
        rel = self._rel(file)
        found = self.db.version(rel, version)
        if found.hash is None:
            raise HistoryError(
                f"version {version} of {rel} is its {found.change} (the file was gone after it); "
                f"show an earlier version (see 'memdir history {rel}')",
                path=rel,
            )
        return self.db.content(found.hash).decode("utf-8", errors="replace")

    def provenance(self, file: str) -> dict[str, object]:
        """Where ``file`` came from and when it last changed, as JSON: ``origin`` (the change that
        created it) and ``lastChange``, each ``{"by", "at", "version", "change"}`` or None."""
        rel = self._rel(file)
        self.db.refresh_file(rel)
        rows = self.db.versions(rel)

        def brief(row: Version | None) -> dict[str, object] | None:
            if row is None:
                return None
            return {"by": row.by, "at": iso_time(row.at), "version": row.version, "change": row.change}

        origin = next((row for row in reversed(rows) if row.hash is not None), None)
        return {"origin": brief(origin), "lastChange": brief(rows[0] if rows else None)}

    def diff(self, file: str, *, start: int | None = None, end: int | None = None) -> str:
        """A unified diff of ``file`` between two versions; by default the last change."""
        rel = self._rel(file)
        rows = self.versions(rel)
        if not rows:
            raise HistoryError(f"{rel} has no recorded versions", path=rel)
        end = rows[0].version if end is None else end
        start = end - 1 if start is None else start
        after = self._text_or_empty(rel, end)
        before = self._text_or_empty(rel, start) if start >= 1 else ""
        lines = difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"{rel}@v{start}", f"{rel}@v{end}"
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def _text_or_empty(self, rel: str, version: int) -> str:
        found = self.db.version(rel, version)
        return "" if found.hash is None else self.db.content(found.hash).decode("utf-8", errors="replace")

    # -- changing ------------------------------------------------------------------------------
    def restore(self, file: str, version: int) -> Version:
        """Put ``file`` back as its version ``version`` left it (a deleted memory too), with its
        ``MEMORY.md`` line; the restore is recorded as a new version. Returns that version."""
        rel = self._rel(file)
        text = self.text(rel, version)
        self.sync()
        with acting_as(current().by, label=f"restore {rel} v{version}"):
            self._put(rel, text)
            self._follow_index(rel)
        return self.db.versions(rel, limit=1)[0]

    def _put(self, rel: str, text: str | None) -> None:
        put_file(self.memory_dir, rel, text)

    def _follow_index(self, rel: str) -> None:
        follow_index(self.memory_dir, rel)

    def undo(self, run: str, *, force: bool = False) -> UndoReport:
        """Put every file ``run`` changed back as it was before the run. A file changed again after
        the run is left alone (reported as a conflict) unless ``force``: an undo never silently
        drops a later edit (and with ``force`` that edit stays in the history).

        The check and the writes happen under the directory's lock, after a catch-up made under
        it too: a save that comes meanwhile waits, and is then a later edit the undo kept."""
        from memdir.store.files import lock_directory

        with lock_directory(self.memory_dir.root, timeout=self.memory_dir.lock_timeout):
            return self._undo(run, force=force)

    def _undo(self, run: str, *, force: bool) -> UndoReport:
        self.sync()
        rows = sorted(self.db.versions(run=run), key=lambda row: row.id)
        if not rows:
            raise HistoryError(f"no run {run!r} in the history (see 'memdir history --runs')")
        first: dict[str, Version] = {}
        last: dict[str, Version] = {}
        for row in rows:
            first.setdefault(row.file, row)
            last[row.file] = row
        restored: list[str] = []
        conflicts: list[Version] = []
        with acting_as(current().by, label=f"{UNDO_LABEL} {run}") as undo_run:
            raw: set[str] = set()
            for rel in sorted(first, key=lambda name: os.path.basename(name) == ENTRYPOINT_NAME):
                newest = self.db.versions(rel, limit=1)[0]
                if newest.hash != last[rel].hash and not force:  # changed since (the same text is no change)
                    conflicts.append(newest)
                    continue
                previous = first[rel].version - 1
                text = self._text_or_none(rel, previous) if previous >= 1 else None
                self._put(rel, text)
                restored.append(rel)
                raw.add(rel)
            for rel in restored:
                index_path, _ = self.memory_dir.index_for(rel)
                if self.memory_dir.relative(index_path) not in raw:
                    self._follow_index(rel)
            self.db.mark_undone(run, undo_run.run)
        return UndoReport(run, undo_run.run, tuple(restored), tuple(conflicts))

    def _text_or_none(self, rel: str, version: int) -> str | None:
        found = self.db.version(rel, version)
        return None if found.hash is None else self.db.content(found.hash).decode("utf-8", errors="replace")

    def last_run(self) -> Run:
        """The most recent run that can be undone: not an undo, not already undone, not a change
        found by a scan."""
        for run in self.runs():
            if run.by == EXTERNAL or run.undone_by or run.label.startswith(UNDO_LABEL + " "):
                continue
            return run
        raise HistoryError("nothing to undo: no recorded run changed this memory directory")

    def prune(self, *, keep_days: float | None = None, keep_versions: int | None = None) -> tuple[int, int]:
        return self.db.prune(keep_days=keep_days, keep_versions=keep_versions)

    def damage(self, *, fix: bool = False) -> list[tuple[str, str]]:
        """``(path, message)`` for a damaged history database (``fix``: set aside now and started
        anew) and for each damaged one set aside earlier, whose versions are only there."""
        found: list[tuple[str, str]] = []
        broken = self.db.check()
        if broken is not None and fix:
            self.db.start_anew()
            broken = None
        if broken is not None:
            found.append(
                (
                    self.db.path,
                    f"the history database is damaged ({broken}); the next change sets it aside and starts a new "
                    "one, or run 'memdir doctor --fix' to do it now",
                )
            )
        for copy in self.db.damaged_copies():
            found.append(
                (
                    copy,
                    "a damaged history database, set aside so that memory writes go on with a new one; the "
                    f"versions from before are only in it ('sqlite3 {copy} .recover'); delete it when you no "
                    "longer need them",
                )
            )
        return found
