"""The consolidation lock: one dream per memory directory at a time, across processes.

The lock file ``<memory dir>/.consolidate-lock`` does double duty, as in Claude Code: its body is
the PID of the process dreaming now, and its mtime is when the last consolidation started, which
the auto-dream gate reads as "last consolidated at". A holder that died or has held it for over an
hour is presumed gone, and the lock is taken over. Writing and then re-reading the PID detects two
processes taking it at the same moment: the one whose PID is not there lost. A failed dream rolls
the mtime back, so the gate does not believe a consolidation happened.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from memdir.store.files import FILE_MODE, ensure_dir

__all__ = ["LOCK_FILENAME", "STALE_AFTER_SECONDS", "ConsolidationLock", "pid_alive"]

LOCK_FILENAME = ".consolidate-lock"
STALE_AFTER_SECONDS = 3600.0
log = logging.getLogger("memdir.journal")
_LEADING_INT = re.compile(r"[+-]?[0-9]+")


def pid_alive(pid: int) -> bool:
    """Whether a process with this PID exists (signal 0 checks without sending anything).

    A process we may not signal still exists, so a permission error counts as alive.
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except (OSError, OverflowError):
        return False
    return True


def _parse_pid(text: str) -> int | None:
    """``parseInt(text.trim(), 10)``: leading digits count, anything else is no PID."""
    match = _LEADING_INT.match(text.strip())
    return int(match.group(0)) if match else None


@dataclass
class ConsolidationLock:
    """The lock of one memory directory; ``clock`` and ``pid`` are injectable for tests."""

    memory_dir: str
    clock: Callable[[], float] = time.time
    pid: int = field(default_factory=os.getpid)
    is_alive: Callable[[int], bool] = pid_alive

    @property
    def path(self) -> str:
        return os.path.join(self.memory_dir, LOCK_FILENAME)

    def last_consolidated_at(self) -> float:
        """Seconds since the epoch of the last consolidation start, 0 when there was none."""
        try:
            return os.stat(self.path).st_mtime
        except OSError:
            return 0.0

    def holder(self) -> int | None:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                return _parse_pid(handle.read())
        except OSError:
            return None

    def _write_pid(self) -> None:
        ensure_dir(self.memory_dir)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(str(self.pid))
        now = self.clock()
        os.utime(self.path, (now, now))

    def try_acquire(self) -> float | None:
        """Take the lock; returns the previous mtime (0 when there was no lock) to roll back to,
        or None when a live process took it less than an hour ago or won a race for it."""
        try:
            prior: float | None = os.stat(self.path).st_mtime
        except OSError:
            prior = None
        holder = self.holder() if prior is not None else None
        fresh = prior is not None and self.clock() - prior < STALE_AFTER_SECONDS
        if fresh and holder is not None and self.is_alive(holder):
            return None
        self._write_pid()
        if self.holder() != self.pid:
            return None
        return prior if prior is not None else 0.0

    def record(self) -> None:
        """Mark a consolidation as started now (a manual dream), whatever the lock's state."""
        self._write_pid()

    def rollback(self, prior: float) -> None:
        """Undo :meth:`try_acquire` after a failed dream: remove the lock when there was none,
        else empty the body and put the previous mtime back."""
        try:
            if prior == 0:
                os.unlink(self.path)
                return
            with open(self.path, "w", encoding="utf-8"):
                pass
            os.utime(self.path, (prior, prior))
        except OSError as exc:
            log.warning("could not roll back the consolidation lock %s: %s", self.path, exc.strerror)
