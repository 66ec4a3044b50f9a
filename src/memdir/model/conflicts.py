"""Conflict copies of team memory: their names, and the frontmatter that says what they are.

When both sides of a team sync changed a memory and the edits cannot be merged, the server's
version keeps the name and the local one is kept beside it as a *conflict copy*. A person must be
able to tell it from the original at a glance (in ``memdir list``, in the index, in the web view)
and a tool must be able to undo the marking exactly when the person chooses to keep that version,
so the marking lives in three frontmatter keys and a fixed wording, all handled here. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection

__all__ = [
    "CONFLICT_OF_KEY",
    "MAX_NAME_BYTES",
    "conflict_copy_key",
    "conflict_of",
    "conflict_original",
    "is_conflict_copy",
    "mark_conflict_copy",
    "unmark_conflict_copy",
]

MAX_NAME_BYTES = 255
"""The longest file name (one path segment) most filesystems accept, in bytes."""

CONFLICT_OF_KEY = "conflict-of"
_KEPT_KEY = "conflict-kept"
_FROM_KEY = "conflict-from"
_NAME_SUFFIX = " (conflicting copy)"
_STAMP = r"\d{8}T\d{6}Z(?:-\d+)?"
_COPY_RE = re.compile(rf"^(?P<stem>.*?)(?:~[0-9a-f]{{8}})?\.conflict-{_STAMP}(?P<ext>\.[^./]*)?$")
_DESCRIPTION_RE = re.compile(r"^Conflicting copy of \S+ \(kept [^)]*\)(?:: (?P<original>.*))?$", re.DOTALL)


def is_conflict_copy(key: str) -> bool:
    """Whether ``key`` (a path or file name) is named like a conflict copy."""
    name = key.rpartition("/")[2]
    return ".conflict-" in name and _COPY_RE.match(name) is not None


def conflict_original(key: str) -> str | None:
    """The key a conflict copy was kept beside, as far as its name tells (a shortened name gives
    its shortened stem; the frontmatter's ``conflict-of`` is exact), or None for other names."""
    folder, slash, name = key.rpartition("/")
    found = _COPY_RE.match(name) if ".conflict-" in name else None
    if found is None:
        return None
    return f"{folder}{slash}{found.group('stem')}{found.group('ext') or ''}"


def _fit(stem: str, tail: str) -> str:
    """``stem + tail`` when it fits :data:`MAX_NAME_BYTES`, else the stem cut at a character boundary
    and followed by ``~`` and 8 hex digits of its hash, so two long names never shorten alike."""
    if len((stem + tail).encode("utf-8")) <= MAX_NAME_BYTES:
        return stem + tail
    digest = "~" + hashlib.sha256(stem.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    room = MAX_NAME_BYTES - len((digest + tail).encode("utf-8"))
    cut = stem.encode("utf-8", "surrogatepass")[: max(room, 1)].decode("utf-8", "ignore")
    return cut + digest + tail


def conflict_copy_key(key: str, stamp: str, taken: Collection[str]) -> str:
    """Where the local side of a conflict is kept: beside ``key``, same extension (so a ``.md``
    memory stays a memory for scans), e.g. ``notes/deploy.conflict-20261124T025000Z.md``; never a
    name in ``taken``, and never a file name over :data:`MAX_NAME_BYTES` bytes."""
    folder, _, name = key.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem:
        stem, extension = name, ""
    suffix = f".{extension}" if extension else ""
    prefix = f"{folder}/" if folder else ""
    candidate = prefix + _fit(stem, f".conflict-{stamp}{suffix}")
    number = 2
    while candidate in taken:
        candidate = prefix + _fit(stem, f".conflict-{stamp}-{number}{suffix}")
        number += 1
    return candidate


def mark_conflict_copy(text: str, key: str, kept_on: str, kept_from: str) -> str:
    """The local version of ``key`` as its conflict copy: its name and description say so (``memdir
    list``, the index and recall show them) and ``conflict-of`` names the original. Text without a
    frontmatter is kept as it is (it is no memory a scan would list)."""
    from memdir.model.memory import Memory

    memory = Memory.parse(text)
    if memory.name is None and memory.description is None:
        return text
    from dataclasses import replace

    name = memory.name or key.rpartition("/")[2]
    original = memory.description or ""
    description = f"Conflicting copy of {key} (kept {kept_on} from {kept_from})" + (f": {original}" if original else "")
    extra = {**memory.extra, CONFLICT_OF_KEY: key, _KEPT_KEY: kept_on, _FROM_KEY: kept_from}
    return replace(memory, name=name + _NAME_SUFFIX, description=description, extra=extra).render()


def unmark_conflict_copy(text: str) -> str:
    """A conflict copy's text as it was before :func:`mark_conflict_copy`: the version a person
    keeps when resolving with "mine" (an unmarked text comes back unchanged)."""
    from memdir.model.memory import Memory

    memory = Memory.parse(text)
    if CONFLICT_OF_KEY not in memory.extra:
        return text
    from dataclasses import replace

    extra = {k: v for k, v in memory.extra.items() if k not in (CONFLICT_OF_KEY, _KEPT_KEY, _FROM_KEY)}
    name = memory.name.removesuffix(_NAME_SUFFIX) if memory.name else None
    description = memory.description
    found = _DESCRIPTION_RE.match(description or "")
    if found is not None:
        description = found.group("original") or None
    return replace(memory, name=name, description=description, extra=extra).render()


def conflict_of(text: str) -> str | None:
    """The key a marked conflict copy belongs to (its ``conflict-of``), or None."""
    from memdir.model.memory import Memory

    value = Memory.parse(text).extra.get(CONFLICT_OF_KEY)
    return value if isinstance(value, str) and value else None
