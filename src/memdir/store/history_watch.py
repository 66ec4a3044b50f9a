"""Outside changes (Claude Code, an editor, git) recorded when memdir reads, not only when it writes.

A command records what others changed at its first write (:meth:`History.before`); a read path
that lists the directory (``memdir list``, an MCP tool call, a page of the web view) calls
:func:`record_external` so that what it shows is in the history too. The web view and the MCP
server run for hours: :func:`watch_external` gives them a thread that records an outside change
as it happens, through watchfiles' file-system events (the ``watch`` extra), so a person sees an
``external`` version without running anything, and two outside edits between memdir's own looks
are two versions, not one. While such a watch is running and its last look succeeded, a read in
that process skips its own catch-up (one ``stat`` per file: most of a list page's cost at 20,000
memories); the watch makes one catch-up as it starts, so what was edited while nothing watched is
recorded too, and a watch that could not start or has stopped leaves the reads catching up as
before. The prompt hook never comes here: it starts ``memdir history sync`` in the background when
its scan noticed a change (:mod:`memdir.integrations.hooks.events`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.store.watch_marks import forget_watch, register_watch

if TYPE_CHECKING:
    from memdir.store.directory import MemoryDir
    from memdir.store.history import History

__all__ = ["ExternalWatch", "record_external", "watch_external"]

log = logging.getLogger("memdir.history")

# The running watches of this process, by the real path of the directory each records.
_watches: dict[str, ExternalWatch] = {}


def record_external(memory_dir: MemoryDir) -> int:
    """Record what others changed in ``memory_dir`` since memdir last looked (one ``stat`` per
    file, a read where one changed); 0 when no history is kept, or when a healthy watch of this
    process records changes as they happen. A read path calls it and carries on whatever happens:
    a history that cannot be written never stops a listing."""
    from memdir.store.history_ops import history_of

    watch = _watches.get(os.path.realpath(memory_dir.root))
    if watch is not None and watch.healthy():
        return 0
    view = history_of(memory_dir)
    if view is None:
        return 0
    try:
        return view.sync()
    except (sqlite3.Error, OSError, MemdirError) as exc:
        log.warning("memdir history could not record outside changes of %s: %s", memory_dir.root, exc)
        return 0


def _outside_path(root: str, path: str) -> bool:
    """A change the history cares about: a file under ``root`` with no part starting with a dot
    (memdir's lock and temp files, ``.git``), as :func:`memdir.store.history._walk` lists them."""
    rel = os.path.relpath(path, root)
    return not rel.startswith("..") and not any(part.startswith(".") for part in rel.split(os.sep))


class ExternalWatch:
    """A daemon thread recording outside changes of one memory directory as they happen."""

    def __init__(self, root: str, db_path: str, *, debounce_ms: int = 300) -> None:
        self.root = os.path.realpath(root)
        self.db_path = db_path
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._ready = threading.Event()
        # True while the watch is in place and its last catch-up succeeded: reads may skip theirs.
        self._caught_up = False
        self._identity: tuple[int, int] | None = None
        self.batches = 0  # batches of changes heard (the derived index compares it, see watch_marks)
        self._thread = threading.Thread(target=self._run, name="memdir-history-watch", daemon=True)

    def start(self, *, wait: bool = True) -> ExternalWatch:
        """Start the thread; with ``wait``, return once the watch is in place (about 0.2 s), so
        that no change made after this returns is missed."""
        self._thread.start()
        if wait:
            self._ready.wait(10.0)
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10.0)

    def healthy(self) -> bool:
        """Every outside change is being recorded as it happens: the thread runs, its last
        catch-up succeeded, and the directory is still the one it watches (one ``stat``; a
        directory removed or replaced leaves the watch on nothing)."""
        if not (self._caught_up and self._thread.is_alive()) or self._stop.is_set():
            return False
        try:
            return _identity(self.root) == self._identity
        except OSError:
            return False

    def seen(self) -> int | None:
        """:attr:`batches` while :meth:`healthy`, else None."""
        return self.batches if self.healthy() else None

    def _catch_up(self, history: History) -> None:
        """A whole-directory catch-up, under the directory's lock: a write memdir is making
        (replace, then record) is never caught half-way and taken for someone else's."""
        from memdir.store.files import lock_directory

        try:
            with lock_directory(self.root, timeout=30.0):
                history.sync()
        except (sqlite3.Error, OSError, MemdirError) as exc:
            self._caught_up = False  # a change may be unrecorded: reads catch up again
            log.warning("memdir history watch of %s: %s", self.root, exc)
        else:
            self._caught_up = True

    def _run(self) -> None:
        import watchfiles

        from memdir.store.history import History

        history = History(self.root, self.db_path)
        _watches[self.root] = self
        register_watch(self.root, self.seen)
        try:
            for changes in watchfiles.watch(
                self.root,
                watch_filter=lambda _change, path: _outside_path(self.root, path),
                stop_event=self._stop,
                debounce=self.debounce_ms,
                step=50,
                rust_timeout=200,
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                if self._identity is None:
                    # The first batch (empty, or the first changes): the watch is in place, so one
                    # catch-up now records what was edited while nothing watched, and every
                    # change from here on comes as a batch.
                    self._identity = _identity(self.root)
                    self._catch_up(history)
                    self._ready.set()
                elif changes:
                    self.batches += 1  # before the catch-up: an index refreshing now looks again later
                    self._catch_up(history)
        except Exception as exc:  # noqa: BLE001  (no watch left, e.g. inotify limits: reads still record)
            log.warning("memdir history stopped watching %s: %s", self.root, exc)
        finally:
            self._caught_up = False
            if _watches.get(self.root) is self:
                del _watches[self.root]
            forget_watch(self.root, self.seen)
            self._ready.set()
            history.close()


def _identity(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def watch_external(root: str, db_path: str | None, *, wait: bool = True) -> ExternalWatch | None:
    """Start recording outside changes of ``root`` as they happen; None when no history is kept
    (``db_path`` None) or watchfiles is not installed (then changes are recorded at memdir's next
    look, as in any command)."""
    if db_path is None or not os.path.isdir(root):
        return None  # a directory that does not exist yet is not made for the watch; reads record
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        log.info("memdir history: watchfiles is not installed (memdir[watch]); outside changes are recorded at reads")
        return None
    return ExternalWatch(root, db_path).start(wait=wait)
