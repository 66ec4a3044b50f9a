"""Three-way line merge of one team-memory file edited on both sides.

Each side's edits are computed against the common base as hunks of base lines replaced by new
lines. When no hunk of one side touches a hunk of the other (overlapping or adjacent, as git
counts them), both sets of edits apply cleanly and the result is returned; otherwise None, and the
caller keeps both versions. Identical edits made on both sides count once.
"""

from __future__ import annotations

from difflib import SequenceMatcher

__all__ = ["merge_lines"]

_Hunk = tuple[int, int, list[str]]


def _hunks(base: list[str], other: list[str]) -> list[_Hunk]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def merge_lines(base: str, local: str, remote: str) -> str | None:
    """The merge of ``local`` and ``remote`` (both derived from ``base``), or None when their edits
    touch the same or adjacent lines."""
    if local == remote:
        return local
    if local == base:
        return remote
    if remote == base:
        return local
    base_lines = base.splitlines(keepends=True)
    ours = _hunks(base_lines, local.splitlines(keepends=True))
    theirs = _hunks(base_lines, remote.splitlines(keepends=True))
    chosen: list[_Hunk] = []
    for hunk in sorted(ours + theirs, key=lambda h: (h[0], h[1])):
        if chosen:
            last = chosen[-1]
            if hunk == last:
                continue
            if hunk[0] <= last[1]:
                return None
        chosen.append(hunk)
    merged: list[str] = []
    position = 0
    for start, end, lines in chosen:
        merged.extend(base_lines[position:start])
        merged.extend(lines)
        position = end
    merged.extend(base_lines[position:])
    return "".join(merged)
