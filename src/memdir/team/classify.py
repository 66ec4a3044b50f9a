"""Three-way classification of every team-memory key: local hash, server hash, recorded base.

Pure: it only compares hashes, so pull, push, sync, status and the watcher all decide the same way
and each decides only what to do with each class.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import Enum

__all__ = ["Change", "classify"]


class Change(Enum):
    UNCHANGED = "unchanged"
    CHANGED_HERE = "changed here"
    CHANGED_THERE = "changed there"
    CHANGED_BOTH = "changed on both sides"
    NEW_HERE = "new here"
    NEW_THERE = "new there"
    NEW_BOTH = "new on both sides, different"
    DELETED_HERE = "deleted here"
    DELETED_THERE = "deleted there"
    EDITED_HERE_DELETED_THERE = "changed here, deleted there"
    DELETED_HERE_EDITED_THERE = "deleted here, changed there"
    GONE = "deleted on both sides"


def classify(
    local: Mapping[str, str],
    remote: Mapping[str, str],
    base: Mapping[str, str],
    *,
    tombstones: Mapping[str, str] | None = None,
    unreadable: Collection[str] = (),
) -> dict[str, Change]:
    """The class of every key of ``local``, ``remote`` and ``base`` (each a key → hash map).

    ``tombstones`` (server keys deleted, with their last hash) let a clone without a base tell a
    file someone deleted from a file created here. ``unreadable`` keys exist locally but cannot be
    pushed (secrets, too large...): they are left out, so they never count as deleted here.
    """
    tombstones = tombstones or {}
    result: dict[str, Change] = {}
    for key in set(local) | set(remote) | set(base):
        if key in unreadable:
            continue
        mine, theirs, agreed = local.get(key), remote.get(key), base.get(key)
        if mine is not None and theirs is not None:
            if mine == theirs:
                result[key] = Change.UNCHANGED
            elif agreed is None:
                result[key] = Change.NEW_BOTH
            elif mine == agreed:
                result[key] = Change.CHANGED_THERE
            elif theirs == agreed:
                result[key] = Change.CHANGED_HERE
            else:
                result[key] = Change.CHANGED_BOTH
        elif mine is not None:
            if agreed is None:
                result[key] = Change.DELETED_THERE if tombstones.get(key) == mine else Change.NEW_HERE
            else:
                result[key] = Change.DELETED_THERE if mine == agreed else Change.EDITED_HERE_DELETED_THERE
        elif theirs is not None:
            if agreed is None:
                result[key] = Change.NEW_THERE
            else:
                result[key] = Change.DELETED_HERE if theirs == agreed else Change.DELETED_HERE_EDITED_THERE
        else:
            result[key] = Change.GONE
    return result
