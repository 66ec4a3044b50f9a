"""What a running watch of a memory directory has seen, for the derived index of the same process.

The web view runs a watch of its memory directory (:mod:`memdir.store.history_watch`) that hears
every change as it happens. Its derived index otherwise refreshes in full (one ``stat`` per file,
seconds at 100,000 memories) whenever its refresh interval has passed, to notice an edit in place,
which changes no directory's mtime; while a healthy watch has heard nothing since the index's
last full refresh, there is nothing for that refresh to find. This module is the meeting point,
kept free of imports so that the prompt hook, which reads the index, loads no watch machinery.
"""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["changes_seen", "forget_watch", "register_watch"]

# The real path of a watched directory -> how many batches of changes its watch has heard, or None
# while the watch is not healthy (not in place, or its last catch-up failed).
_watches: dict[str, Callable[[], int | None]] = {}


def register_watch(root: str, seen: Callable[[], int | None]) -> None:
    _watches[os.path.realpath(root)] = seen


def forget_watch(root: str, seen: Callable[[], int | None]) -> None:
    key = os.path.realpath(root)
    if _watches.get(key) == seen:
        del _watches[key]


def changes_seen(root: str) -> int | None:
    """How many batches of changes a healthy watch of this process has heard under ``root``, or
    None when there is none (nothing is then known about changes the directories do not show)."""
    if not _watches:
        return None
    seen = _watches.get(os.path.realpath(root))
    return None if seen is None else seen()
