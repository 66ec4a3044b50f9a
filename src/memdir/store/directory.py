"""A memory directory: topic files plus the ``MEMORY.md`` index, kept in step.

Every operation that changes a memory and its index line runs under the directory's one file
lock, so twenty processes saving at once lose neither a file nor an index line. Every path a
caller names goes through :func:`memdir.containment.contain`; nothing read from a file can widen where
this class reads or writes.
"""

from __future__ import annotations

import builtins
import functools
import os
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memdir.containment import contain, normalize_root
from memdir.errors import ConfigError, MemdirError, MemoryExists, MemoryFormatError, MemoryNotFound, UnsafePathError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.frontmatter import decode_memory_bytes
from memdir.model.memory_type import FrontmatterLayout
from memdir.store.files import (
    atomic_write,
    ensure_dir,
    lock_directory,
    move_path,
    read_bytes_limited,
    remove_file,
    remove_stale_temps,
    sync_directories,
)
from memdir.store.names import default_filename, unique_filename
from memdir.store.scan import MAX_MEMORY_FILES, MemoryHeader, ScanCache, scan_memory_files

if TYPE_CHECKING:
    from pathlib import Path

    # Imported where they are used, as memdir.model.index is by the methods that edit an index:
    # every hook imports this module and uses none of them, and building a dataclass costs Python
    # 3.11 a few tenths of a millisecond each.
    from memdir.model.index import IndexEntry
    from memdir.model.memory import Memory
    from memdir.store.history_ops import HistoryView
    from memdir.store.ranked_store import RankedStore
    from memdir.store.records import DeleteResult, MemoryRecord, SaveResult

__all__ = ["TEAM_DIRNAME", "MemoryDir", "WriteGuard"]

TEAM_DIRNAME = "team"

# A guard sees (relative file, new content) before any write and raises to refuse it. The team
# secret scanner plugs in here; the store itself knows nothing about secrets.
WriteGuard = Callable[[str, str], None]


class MemoryDir:
    """One memory directory (a private auto-memory dir, a team dir, an agent's dir, or any other)."""

    proposes = False
    """Whether a write here is a proposal a person accepts (``memdir.agentWrites`` is review), so
    that an answer says so instead of "created"; see :class:`~memdir.store.review.ProposalDir`."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        lock_timeout: float = 10.0,
        scan_cap: int | None = MAX_MEMORY_FILES,
        write_guards: Sequence[WriteGuard] = (),
        index_read_only: str | None = None,
        layout: FrontmatterLayout | None = None,
        stamp: Callable[[], str] | None = None,
        index_check: Callable[[str], str | None] | None = None,
        scan_cache_file: str | None = None,
    ) -> None:
        """``index_read_only``: when set, every change to an index is refused with this reason
        (daily-log mode, where only the dream rewrites ``MEMORY.md``). ``layout`` is the
        frontmatter layout saved files get (None: each memory's own), and ``stamp`` gives the
        ``modified:`` time a save records (None: no stamp), as the Claude Code release in use does.
        ``index_check`` says why an index text is too long to write (None: any length is written;
        Claude Code then loads only its head). ``scan_cache_file`` keeps the scanned headers between
        processes (see :class:`ScanCache`)."""
        self.root = normalize_root(root)
        self.lock_timeout = lock_timeout
        self.scan_cap = scan_cap
        self.write_guards = tuple(write_guards)
        self.index_read_only = index_read_only
        self.layout = layout
        self.stamp = stamp
        self.index_check = index_check
        self.scan_cache = ScanCache(scan_cache_file)
        self._swept: set[str] = set()  # directories whose stale temp files this object already removed

    def __repr__(self) -> str:
        return f"MemoryDir({self.root!r})"

    @property
    def path(self) -> str:
        """The directory with exactly one trailing separator, the form prefix checks need."""
        return self.root + os.sep

    @property
    def entrypoint(self) -> str:
        return os.path.join(self.root, ENTRYPOINT_NAME)

    def ensure(self) -> None:
        ensure_dir(self.root)

    @property
    def history(self) -> HistoryView | None:
        """Every version of every file here, who made it and when, with restore and undo
        (docs/history.md); None when no history is kept for this directory."""
        from memdir.store.history_ops import history_of

        return history_of(self)

    # -- paths -----------------------------------------------------------------------------
    def resolve(self, file: str) -> str:
        """The absolute path of ``file`` (relative, or absolute inside the directory), contained."""
        return contain(self.root, file, allow_absolute=True)

    def relative(self, path: str) -> str:
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def _memory_file(self, file: str) -> tuple[str, str]:
        """Resolve a topic-file name: contained, ``.md``, and not an index."""
        path = self.resolve(file)
        rel = self.relative(path)
        if not rel.endswith(".md"):
            raise UnsafePathError(
                f"memory file {file!r} must end in .md (scans and recall only see Markdown files)",
                rule="not-markdown",
                path=file,
            )
        if os.path.basename(rel) == ENTRYPOINT_NAME:
            raise UnsafePathError(
                f"{file!r} is an index file; save topic files and let memdir keep MEMORY.md in step",
                rule="index-not-memory",
                path=file,
            )
        return path, rel

    def index_for(self, rel: str) -> tuple[str, str]:
        """(index path, entry target) for a topic file: team files use ``team/MEMORY.md``."""
        parts = rel.split("/")
        if len(parts) > 1 and parts[0] == TEAM_DIRNAME:
            return os.path.join(self.root, TEAM_DIRNAME, ENTRYPOINT_NAME), "/".join(parts[1:])
        return self.entrypoint, rel

    # -- reading ---------------------------------------------------------------------------
    def read_text(self, file: str) -> str:
        path = self.resolve(file)
        try:
            data = read_bytes_limited(path)
        except FileNotFoundError as exc:
            raise MemoryNotFound(f"no memory file {file!r} in {self.root}", path=path) from exc
        except IsADirectoryError as exc:
            raise MemoryFormatError(f"{file!r} is a directory, not a memory file", path=path) from exc
        return decode_memory_bytes(data, path=path)

    def read(self, file: str) -> MemoryRecord:
        path, rel = self._memory_file(file)
        text = self.read_text(rel)
        mtime_ms = os.stat(path).st_mtime_ns / 1e6
        from memdir.model.memory import Memory
        from memdir.store.records import MemoryRecord

        return MemoryRecord(file=rel, path=path, text=text, memory=Memory.parse(text), mtime_ms=mtime_ms)

    def index_text(self, index_path: str | None = None) -> str:
        """The raw text of an index (the root ``MEMORY.md`` by default), or "" when absent."""
        target = index_path or self.entrypoint
        try:
            return decode_memory_bytes(read_bytes_limited(target), path=target)
        except FileNotFoundError:
            return ""

    def scan(self) -> list[MemoryHeader]:
        """Headers newest first, at most ``scan_cap`` (the set recall and extraction consider)."""
        return scan_memory_files(self.root, max_files=self.scan_cap, cache=self.scan_cache)

    def headers(self) -> list[MemoryHeader]:
        """Every memory, newest first, with no cap."""
        return scan_memory_files(self.root, max_files=None, cache=self.scan_cache)

    def list(self) -> builtins.list[MemoryHeader]:
        """Deprecated alias of :meth:`headers`, kept for existing callers (the name shadowed the builtin)."""
        return self.headers()

    def ranked_store(self, *, defer_work: bool = False) -> RankedStore | None:
        """The derived index to rank the whole store in, when recall covers it and it is built; a
        plain directory has none (recall ranks :meth:`recall_scan`). ``defer_work``: the caller
        answers now (the prompt hook), and an index's long work is left to the background."""
        return None

    def recall_scan(self, *, defer_work: bool = False) -> builtins.list[MemoryHeader]:
        """The headers recall ranks when it cannot rank in an index: :meth:`scan`."""
        return self.scan()

    def exists(self, file: str) -> bool:
        return os.path.isfile(self.resolve(file))

    # -- writing ---------------------------------------------------------------------------
    def _check_index_writable(self) -> None:
        if self.index_read_only is not None:
            raise ConfigError(self.index_read_only, rule="index-read-only", path=self.entrypoint)

    def _real_rel(self, rel: str) -> str | None:
        """Where ``rel`` really lands, relative to the real root, when a symlink inside the
        directory moves it (``notes -> team``); None when it lands where it says."""
        real_root = os.path.realpath(self.root)
        real = os.path.relpath(os.path.realpath(os.path.join(self.root, rel)), real_root).replace(os.sep, "/")
        return None if real == rel or real.startswith("../") else real

    def _guard(self, rel: str, content: str) -> None:
        real = self._real_rel(rel)
        for name in (rel,) if real is None else (rel, real):
            if os.path.basename(name) == ENTRYPOINT_NAME:
                self._check_index_writable()
            for guard in self.write_guards:
                guard(name, content)

    def check_move(self, old_path: str, new_path: str) -> None:
        """Run the write guards on everything a move would place at ``new_path``.

        A move writes content into its destination as surely as a save does, so a file (or a
        directory of files) holding a secret cannot reach ``team/`` by being renamed there, and an
        index cannot appear or vanish by a rename in daily-log mode. Both paths must be contained.
        """
        sources = [old_path]
        if os.path.isdir(old_path) and not os.path.islink(old_path):
            sources = [os.path.join(d, name) for d, _, names in os.walk(old_path) for name in names]
        old_rel = self.relative(old_path)
        new_rel = self.relative(new_path)
        for source in sources:
            rel = self.relative(source)
            moved = new_rel + rel[len(old_rel) :]
            if ENTRYPOINT_NAME in (os.path.basename(rel), os.path.basename(moved)):
                self._check_index_writable()
            if not self.write_guards:
                continue
            try:
                content = read_bytes_limited(self.resolve(rel)).decode("utf-8", errors="replace")
            except FileNotFoundError:
                continue
            self._guard(moved, content)

    def check_removal(self, path: str) -> None:
        """Refuse to remove an index, or a directory holding one, while indexes are read-only."""
        if self.index_read_only is None:
            return
        if os.path.basename(path) == ENTRYPOINT_NAME:
            self._check_index_writable()
        if os.path.isdir(path) and not os.path.islink(path):
            for _, _, names in os.walk(path):
                if ENTRYPOINT_NAME in names:
                    self._check_index_writable()

    def check_write(self, file: str) -> None:
        """Raise when this directory refuses any write to ``file`` (an agent's view of a store whose
        agent writes are off): asked before work a refused write would waste or misreport."""

    def write_text(self, file: str, content: str) -> str:
        """Write any file inside the directory (used by sandboxed agent tools); returns its path.

        No index upkeep here: an agent that writes raw files maintains ``MEMORY.md`` itself. An index
        written this way is neutralised (:func:`_as_index`), as every index line memdir renders is.
        """
        path = self.resolve(file)
        rel = self.relative(path)
        content = _as_index(path, content)
        self._guard(rel, content)
        with lock_directory(self.root, timeout=self.lock_timeout):
            if os.path.basename(path) == ENTRYPOINT_NAME:
                self._check_index_room(path, lambda _: content)
            atomic_write(path, content)
        return path

    def update_text(self, file: str, change: Callable[[str], str]) -> str:
        """Read, change and write one file under the lock; ``change`` may raise to abort."""
        path = self.resolve(file)
        rel = self.relative(path)
        with lock_directory(self.root, timeout=self.lock_timeout):
            new = _as_index(path, change(self.read_text(rel)))
            self._guard(rel, new)
            if os.path.basename(path) == ENTRYPOINT_NAME:
                self._check_index_room(path, lambda _: new)
            atomic_write(path, new)
        return path

    def save(
        self,
        memory: Memory,
        *,
        file: str | None = None,
        force: bool = False,
        title: str | None = None,
        index: bool = True,
        check: Callable[[str], None] | None = None,
    ) -> SaveResult:
        """Write a topic file and add or replace its index line, as one locked step.

        Refuses to overwrite an existing file unless ``force``; refuses a memory without a name
        or description, because recall cannot find what it cannot describe. ``check`` is called
        under the lock with the path about to be written, before anything is, and may raise to
        refuse the save (a writer's test against the store, which another writer cannot race).
        """
        from memdir.model.index import IndexEntry

        _check_savable(memory)
        if index:
            self._check_index_writable()
        name = memory.name or ""
        path, rel = self._memory_file(file or default_filename(memory.type, name))
        content = self.as_written(memory).render()
        with lock_directory(self.root, timeout=self.lock_timeout):
            if file is None and not force and os.path.lexists(path) and not self._same_name(path, name):
                # Another memory's name slugs alike (every name in a script the slug cannot keep
                # did, once): this one gets a suffix rather than a refusal.
                path, rel = self._memory_file(unique_filename(rel, lambda other: os.path.lexists(self.resolve(other))))
            self._guard(rel, content)
            index_path, target = self.index_for(rel)
            created = not os.path.exists(path)
            if not created and not force:
                raise MemoryExists(
                    f"{rel} already exists in {self.root}; pass force to replace it or choose another file name",
                    path=path,
                )
            if check is not None:
                check(path)
            entry = IndexEntry(title=title or name, file=target, hook=memory.description or "")
            edit, refused = self._index_edit(index_path, entry) if index else (None, None)
            # The two renames reach the disk with one fsync of their directory (two when the index
            # is elsewhere), after both.
            renamed = self._write_memory(rel, path, content)
            self._sweep(os.path.dirname(path), os.path.dirname(index_path))
            try:
                changed = edit is not None and self._write_index(index_path, *edit, renamed=renamed)
            finally:
                sync_directories(*renamed)
        from memdir.store.records import SaveResult

        return SaveResult(
            file=rel,
            path=path,
            created=created,
            index_file=self.relative(index_path),
            index_changed=changed,
            index_refused=refused,
        )

    def _index_edit(self, index_path: str, entry: IndexEntry) -> tuple[tuple[str, str] | None, str | None]:
        """The index's text before and after ``entry`` is put in it, read and edited once under the
        caller's lock; or no edit and why, when the index has no room for it."""
        from memdir.model.index import upsert_entry

        before = self.index_text(index_path)
        edit = (before, upsert_entry(before, entry))
        try:
            self._check_room(index_path, *edit)
        except MemoryFormatError as exc:
            return None, str(exc)
        return edit, None

    def _write_memory(self, rel: str, path: str, content: str) -> builtins.list[str]:
        """Put a saved memory's text on disk (a :class:`~memdir.store.review.ProposalDir` proposes it);
        returns the directories whose renames the caller syncs."""
        return [atomic_write(path, content, sync_directory=False)]

    def as_written(self, memory: Memory) -> Memory:
        """``memory`` in the layout, and with the ``modified:`` stamp, that this directory writes."""
        if self.layout is None and self.stamp is None:
            return memory
        return memory.written_for(self.layout or memory.layout, modified=self.stamp() if self.stamp else None)

    def _same_name(self, path: str, name: str) -> bool:
        """Whether the memory at ``path`` has the name ``name`` (the same memory saved again, which is
        refused without ``force``), as opposed to another memory whose name slugs alike."""
        try:
            from memdir.model.memory import Memory

            existing = Memory.parse(decode_memory_bytes(read_bytes_limited(path), path=path)).name or ""
        except (OSError, MemdirError):
            return False

        def key(text: str) -> str:
            return unicodedata.normalize("NFC", text).strip().casefold()

        return key(existing) == key(name)

    def _sweep(self, *directories: str) -> None:
        """Remove temp files a killed save left behind (once per directory per object: a listing
        of 20,000 names is not free, and a long-lived process keeps no new ones)."""
        for directory in directories:
            if directory not in self._swept:
                remove_stale_temps(directory)
                self._swept.add(directory)

    def delete(self, file: str) -> DeleteResult:
        """Remove a topic file and every index line that points to it."""
        from memdir.model.index import remove_entry

        self._check_index_writable()
        path, rel = self._memory_file(file)
        index_path, target = self.index_for(rel)
        with lock_directory(self.root, timeout=self.lock_timeout):
            if os.path.islink(path) or os.path.isfile(path):
                deleted = remove_file(path)
            elif os.path.exists(path):
                raise MemoryFormatError(f"{rel} is not a regular file; remove it by hand", path=path)
            else:
                deleted = False
            changed = self._rewrite_index(index_path, lambda text: remove_entry(text, target))
        if not deleted and not changed:
            raise MemoryNotFound(f"no memory file {rel!r} and no index line for it in {self.root}", path=path)
        from memdir.store.records import DeleteResult

        return DeleteResult(
            file=rel, path=path, deleted=deleted, index_file=self.relative(index_path), index_changed=changed
        )

    def rename(self, old: str, new: str) -> SaveResult:
        """Move a topic file and repoint its index line."""
        from memdir.model.index import IndexEntry, remove_entry, rename_entry, upsert_entry

        self._check_index_writable()
        old_path, old_rel = self._memory_file(old)
        new_path, new_rel = self._memory_file(new)
        old_index, old_target = self.index_for(old_rel)
        new_index, new_target = self.index_for(new_rel)
        with lock_directory(self.root, timeout=self.lock_timeout):
            if not os.path.isfile(old_path):
                raise MemoryNotFound(f"no memory file {old_rel!r} in {self.root}", path=old_path)
            if os.path.exists(new_path):
                raise MemoryExists(f"{new_rel} already exists; delete it first or pick another name", path=new_path)
            self.check_move(old_path, new_path)
            ensure_dir(os.path.dirname(new_path))
            move_path(old_path, new_path)
            if old_index == new_index:
                changed = self._rewrite_index(old_index, lambda t: rename_entry(t, old_target, new_target))
            else:
                from memdir.model.memory import Memory

                record = Memory.parse(self.read_text(new_rel))
                self._rewrite_index(old_index, lambda t: remove_entry(t, old_target))
                entry = IndexEntry(title=record.name or new_target, file=new_target, hook=record.description or "")
                changed = self._rewrite_index(new_index, lambda t: upsert_entry(t, entry))
        from memdir.store.records import SaveResult

        return SaveResult(
            file=new_rel,
            path=new_path,
            created=False,
            index_file=self.relative(new_index),
            index_changed=changed,
        )

    def add_missing_index_lines(self, files: Sequence[str]) -> tuple[str, ...]:
        """Give each of ``files`` that has a name and a description its index line, when it has none.

        For writers that put topic files on disk without touching the index (a model using raw
        file tools): the memory would otherwise exist without ``MEMORY.md`` knowing. Lines that
        exist are kept as written. Returns the files that got a line.
        """
        from memdir.model.index import IndexEntry, parse_entries, upsert_entries

        added: builtins.list[str] = []
        if self.index_read_only is not None:
            return ()
        with lock_directory(self.root, timeout=self.lock_timeout):
            wanted: dict[str, list[IndexEntry]] = {}
            for file in files:
                path, rel = self._memory_file(file)
                if not os.path.isfile(path):
                    continue
                from memdir.model.memory import Memory

                memory = Memory.parse(self.read_text(rel))
                if not (memory.name and memory.description) or "\n" in memory.description:
                    continue
                index_path, target = self.index_for(rel)
                wanted.setdefault(index_path, []).append(IndexEntry(memory.name, target, memory.description))
            for index_path, entries in wanted.items():
                listed = {entry.file.removeprefix("./") for _, entry in parse_entries(self.index_text(index_path))}
                new = [entry for entry in entries if entry.file not in listed]
                if new and self._rewrite_index(index_path, functools.partial(upsert_entries, entries=new)):
                    base = os.path.dirname(self.relative(index_path))
                    added.extend(f"{base}/{entry.file}" if base else entry.file for entry in new)
        return tuple(added)

    def rewrite_index(self, change: Callable[[str], str], *, index_path: str | None = None) -> bool:
        """Apply ``change`` to an index under the lock; True when the file changed."""
        self._check_index_writable()
        with lock_directory(self.root, timeout=self.lock_timeout):
            return self._rewrite_index(index_path or self.entrypoint, change)

    def _check_index_room(self, index_path: str, change: Callable[[str], str]) -> None:
        """Refuse, before anything is written, a change that grows an index past what is loaded."""
        if self.index_check is not None:
            before = self.index_text(index_path)
            self._check_room(index_path, before, change(before))

    def _check_room(self, index_path: str, before: str, after: str) -> None:
        if self.index_check is None or len(after) <= len(before):
            return
        if (reason := self.index_check(after)) is not None:
            raise MemoryFormatError(f"{self.relative(index_path)}: {reason}", rule="index-too-long", path=index_path)

    def _rewrite_index(self, index_path: str, change: Callable[[str], str]) -> bool:
        """Apply ``change`` to an index (the caller holds the lock): the text is read and changed
        once, checked for room, and written when it changed."""
        before = self.index_text(index_path)
        after = change(before)
        self._check_room(index_path, before, after)
        return self._write_index(index_path, before, after)

    def _write_index(
        self, index_path: str, before: str, after: str, *, renamed: builtins.list[str] | None = None
    ) -> bool:
        """Write ``after`` when it differs from ``before``; with ``renamed``, the directory is
        added to it for the caller to sync rather than synced here."""
        if after == before:
            return False
        if not after.strip() and not os.path.exists(index_path):
            return False
        directory = atomic_write(index_path, after, sync_directory=renamed is None)
        if renamed is not None:
            renamed.append(directory)
        return True

    def __fspath__(self) -> str:
        return self.root

    def as_path(self) -> Path:
        from pathlib import Path  # here: pathlib (with urllib) is a cost every hook would pay for nothing

        return Path(self.root)


def _check_savable(memory: Memory) -> None:
    """Refuse a memory recall could not find: without a name, or without a one-line description."""
    if not (memory.name or "").strip():
        raise MemoryFormatError("a memory needs a name (a short title)", rule="missing-name")
    if not (memory.description or "").strip():
        raise MemoryFormatError(
            "a memory needs a description: one specific line that recall uses to decide relevance",
            rule="missing-description",
        )
    if "\n" in (memory.description or ""):
        raise MemoryFormatError("a memory's description must be one line", rule="multiline-description")


def _as_index(path: str, text: str) -> str:
    """``text`` as it may be written at ``path``: an index (``MEMORY.md``) neutralised line by line,
    its link targets kept (:func:`memdir.model.index.neutralise_index`), since Claude Code loads it
    into the prompt as it is on disk, and an agent writing it through memdir's tools (the memory
    tool, extraction's file tools) may be repeating words it read somewhere; any other file as it is."""
    if os.path.basename(path) != ENTRYPOINT_NAME:
        return text
    from memdir.model.index import neutralise_index

    return neutralise_index(text)
