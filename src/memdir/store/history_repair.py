"""A damaged history database: told apart from a busy or read-only one, set aside, never deleted.

A history is SQLite under the config home. A disk fault, a full disk at the wrong moment or a
truncated copy can damage its pages while its header still reads, so it opens and then fails on
some query: SQLite's result code is ``SQLITE_CORRUPT`` (or ``SQLITE_NOTADB``). That must never stop
a memory write, so :func:`recovering` wraps the history's operations: on such an error the
database is set aside beside itself as ``<name>.damaged-<time>`` (with its ``-wal`` and ``-shm``
files), a warning says so, and the operation runs again on a new, empty history, which the next
catch-up fills with the files as they are. The copy is kept for a person (``sqlite3 FILE
.recover`` reads what is left) and listed by ``memdir doctor`` until they remove it. Any other
SQLite error (locked, read-only, disk full) is not damage and goes to the caller.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from memdir.store.files import FILE_MODE

__all__ = ["damaged_copies", "is_damage", "recovering", "set_aside"]

log = logging.getLogger("memdir.history")

_DAMAGED = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB: the primary result codes
_SUFFIX = ".damaged-"

P = ParamSpec("P")
T = TypeVar("T")


class _Repairable(Protocol):
    def _set_aside(self, reason: str) -> None: ...


S = TypeVar("S", bound=_Repairable)


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the database itself is damaged (not busy, read-only or full)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _DAMAGED


def recovering(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """``method`` run once more on a new history when the database turns out to be damaged."""

    def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            self._set_aside(str(exc))
        return method(self, *args, **kwargs)

    run.__doc__, run.__name__ = method.__doc__, method.__name__
    return run


def set_aside(path: str, reason: str) -> str:
    """Move the database at ``path`` (and its ``-wal`` and ``-shm``) to ``<path>.damaged-<time>``,
    leave an empty file for a new one (mode 0600), say so; returns where it went."""
    aside = f"{path}{_SUFFIX}{time.strftime('%Y%m%dT%H%M%S')}"
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(path + suffix, aside + suffix)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    log.warning(
        "memdir history: %s is damaged (%s); kept as %s and a new history started with the files as they are "
        "('memdir doctor' lists it, 'sqlite3 FILE .recover' reads what is left)",
        path,
        reason,
        aside,
    )
    return aside


def damaged_copies(path: str) -> list[str]:
    """The damaged databases set aside beside ``path``, oldest first."""
    return sorted(glob.glob(glob.escape(path) + _SUFFIX + "*[0-9]"))
