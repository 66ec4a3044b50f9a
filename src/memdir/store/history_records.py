"""The values the local history hands out: one recorded change (:class:`Version`), one run
(:class:`Run`), and where a directory's history database lives. Kept apart from
:mod:`memdir.store.history`, which stores and records them."""

from __future__ import annotations

import time
from typing import NamedTuple

from memdir.errors import MemdirError

__all__ = ["CHANGES", "HistoryError", "Run", "Version", "change_of_run", "history_path", "iso_time"]

# "restore" and "undo": a version a restore or an undo wrote (an undo that took a file away has no
# content, like a delete).
CHANGES = ("create", "edit", "delete", "rename", "restore", "undo")


def change_of_run(label: str) -> str | None:
    """The change every write of a run records, when the run is a restore or an undo (its label,
    ``restore <file> v<n>`` or ``undo <run>``, says so); None for any other run."""
    word = label.split(" ", 1)[0]
    return word if word in ("restore", "undo") else None


class HistoryError(MemdirError):
    """The history cannot do what was asked (no such version, a version with no content)."""


class Version(NamedTuple):
    """One recorded change of one file."""

    id: int
    file: str
    version: int
    at: float
    by: str
    run: str
    change: str
    hash: str | None  # None: the file was gone after this change
    size: int
    other: str | None = None  # a rename's other name (where it came from, or went)

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "file": self.file,
            "version": self.version,
            "at": iso_time(self.at),
            "by": self.by,
            "change": self.change,
            "size": self.size,
            "run": self.run,
        }
        if self.change == "rename" and self.other:
            out["from" if self.hash is not None else "to"] = self.other
        return out


class Run(NamedTuple):
    """One command or agent run that changed memory."""

    id: str
    by: str
    label: str
    started: float
    changes: int
    files: tuple[str, ...]
    undone_by: str | None

    def as_json(self) -> dict[str, object]:
        return {
            "run": self.id,
            "by": self.by,
            "label": self.label,
            "at": iso_time(self.started),
            "changes": self.changes,
            "files": list(self.files),
            "undoneBy": self.undone_by,
        }


def iso_time(seconds: float) -> str:
    """UTC, to the second, ``Z``: ``2026-11-26T07:02:11Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def history_path(memory_dir: str, home: str) -> str:
    """``<home>/memdir/history/<the directory as one name>-<hash>.sqlite3``, ``home`` the config home."""
    from memdir.store.scan import cache_file_path

    return cache_file_path(memory_dir, home, "history").removesuffix(".json") + ".sqlite3"
