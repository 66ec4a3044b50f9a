"""Resolving a conflict copy of team memory: keep mine, theirs, both, or a merged text.

Team sync keeps the local side of an unmergeable edit as a conflict copy beside the memory (see
:mod:`memdir.model.conflicts`). Resolving it is a local change to ``team/`` made under the memory
directory's lock (the copy goes, the memory gets the chosen text) followed by the index settling;
the caller then syncs, so the resolution reaches the team like any other edit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum

from memdir.errors import MemdirError
from memdir.model.conflicts import conflict_copy_key, conflict_of, conflict_original, is_conflict_copy
from memdir.model.conflicts import unmark_conflict_copy as unmark
from memdir.store.files import atomic_write, lock_directory, read_bytes_limited, remove_file
from memdir.team.derived_index import settle_index, team_memory_keys

__all__ = ["Keep", "Pending", "Resolution", "conflict_pair", "pending_conflicts", "resolve_conflict"]


class Keep(Enum):
    MINE = "mine"  # the conflict copy's text (unmarked) replaces the memory
    THEIRS = "theirs"  # the memory stays as it is; the copy goes
    BOTH = "both"  # the copy becomes a memory of its own, under a name without "conflict"
    MERGED = "merged"  # a text the person wrote replaces the memory; the copy goes


@dataclass(frozen=True)
class Pending:
    """One conflict copy waiting for a person: its key, the memory it belongs to, both texts."""

    copy: str
    original: str
    mine: str
    theirs: str | None  # None when the memory itself is gone

    def to_json(self) -> dict[str, object]:
        return {"copy": self.copy, "original": self.original, "original_exists": self.theirs is not None}


@dataclass(frozen=True)
class Resolution:
    copy: str
    original: str
    keep: Keep
    written: tuple[str, ...]
    removed: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "copy": self.copy,
            "original": self.original,
            "keep": self.keep.value,
            "written": list(self.written),
            "removed": list(self.removed),
        }


def _read(path: str) -> str | None:
    try:
        return read_bytes_limited(path).decode("utf-8", "replace")
    except (FileNotFoundError, IsADirectoryError):
        return None


def conflict_pair(team_dir: str, key: str) -> Pending:
    """The conflict copy ``key`` names (the copy itself, or a memory that has exactly one copy)."""
    keys = team_memory_keys(team_dir)
    if not is_conflict_copy(key):
        copies = [pending.copy for pending in pending_conflicts(team_dir) if pending.original == key]
        if len(copies) != 1:
            known = ", ".join(p.copy for p in pending_conflicts(team_dir)) or "none"
            raise MemdirError(
                f"{key} has {'no' if not copies else len(copies)} conflict copies; name the copy to resolve "
                f"(conflict copies in team/: {known})",
                rule="resolve-which",
            )
        key = copies[0]
    if key not in keys:
        raise MemdirError(f"no conflict copy {key!r} in team/; 'memdir team status' lists them", rule="resolve-missing")
    mine = _read(os.path.join(team_dir, key)) or ""
    original = conflict_of(mine) or conflict_original(key) or key
    return Pending(key, original, mine, _read(os.path.join(team_dir, original)))


def pending_conflicts(team_dir: str) -> list[Pending]:
    """Every conflict copy in ``team/``, with the memory it belongs to."""
    found: list[Pending] = []
    for key in team_memory_keys(team_dir):
        if is_conflict_copy(key):
            mine = _read(os.path.join(team_dir, key)) or ""
            original = conflict_of(mine) or conflict_original(key) or key
            found.append(Pending(key, original, mine, _read(os.path.join(team_dir, original))))
    return found


def resolve_conflict(team_dir: str, key: str, keep: Keep, merged: str | None = None) -> Resolution:
    """Apply a person's choice for the conflict copy ``key`` (or the memory with one copy), then
    settle ``team/MEMORY.md``. Nothing is removed before the kept text is on disk."""
    if keep is Keep.MERGED and merged is None:
        raise MemdirError("a merged resolution needs the merged text", rule="resolve-no-text")
    pending = conflict_pair(team_dir, key)
    copy_path = os.path.join(team_dir, pending.copy)
    original_path = os.path.join(team_dir, pending.original)
    written: list[str] = []
    with lock_directory(os.path.dirname(team_dir.rstrip(os.sep))):
        if _read(copy_path) != pending.mine or _read(original_path) != pending.theirs:
            raise MemdirError(f"{pending.copy} changed while resolving; run the command again", rule="resolve-raced")
        if keep is Keep.MINE:
            atomic_write(original_path, unmark(pending.mine))
            written.append(pending.original)
        elif keep is Keep.MERGED:
            atomic_write(original_path, merged or "")
            written.append(pending.original)
        elif keep is Keep.BOTH:
            second = _second_name(pending.original, set(team_memory_keys(team_dir)))
            atomic_write(os.path.join(team_dir, second), _as_second(unmark(pending.mine)))
            written.append(second)
        remove_file(copy_path)
    settle_index(team_dir)
    return Resolution(pending.copy, pending.original, keep, tuple(written), (pending.copy,))


def _second_name(original: str, taken: set[str]) -> str:
    """``deploy-2.md`` (then ``-3``…) beside ``deploy.md``: the kept-both version's own file."""
    stem = original.removesuffix(".md")
    number = 2
    while f"{stem}-{number}.md" in taken:
        number += 1
    candidate = f"{stem}-{number}.md"
    if len(candidate.rpartition("/")[2].encode("utf-8")) > 255:
        return conflict_copy_key(original, f"kept-{number}", taken).replace(".conflict-", "-")
    return candidate


def _as_second(text: str) -> str:
    """The copy's text kept as a memory of its own: its name says it is the second version."""
    from dataclasses import replace

    from memdir.model.memory import Memory

    memory = Memory.parse(text)
    if memory.name is None:
        return text
    return replace(memory, name=f"{memory.name} (second version)").render()
