"""Turning selected memory files into what the model sees (SPEC §6.5-§6.7).

Each surfaced memory is read within 200 lines and 4,096 bytes, given an age header, and
wrapped as a system reminder. The header is computed once, when the memory is surfaced, and
stored, so that the rendered bytes stay identical on later turns (prompt-cache stability).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from memdir.errors import MemoryFormatError
from memdir.model.markup import neutralise
from memdir.store.files import open_regular

__all__ = [
    "DAY_MS",
    "MAX_SURFACED_BYTES",
    "MAX_SURFACED_FILES",
    "MAX_SURFACED_LINES",
    "SESSION_SURFACED_BUDGET",
    "TEAM_AUTHOR_NOTE",
    "FileSlice",
    "SurfacedMemory",
    "is_team_file",
    "memory_age",
    "memory_age_days",
    "memory_freshness_note",
    "memory_freshness_text",
    "memory_header",
    "read_file_in_range",
    "read_memory_for_surfacing",
    "render_hook_context",
    "render_plain",
    "render_reminder",
    "wrap_system_reminder",
]

MAX_SURFACED_FILES = 5
MAX_SURFACED_LINES = 200
MAX_SURFACED_BYTES = 4096
SESSION_SURFACED_BUDGET = 60 * 1024
DAY_MS = 86_400_000
# Enough bytes to decide both limits exactly: 200 lines that fit in 4,096 bytes and anything after.
_READ_WINDOW = 2 * MAX_SURFACED_BYTES


def memory_age_days(mtime_ms: float, now_ms: float) -> int:
    """Whole elapsed 24-hour periods; a timestamp in the future counts as today."""
    return max(0, math.floor((now_ms - mtime_ms) / DAY_MS))


def memory_age(mtime_ms: float, now_ms: float) -> str:
    days = memory_age_days(mtime_ms, now_ms)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


def memory_freshness_text(mtime_ms: float, now_ms: float) -> str:
    days = memory_age_days(mtime_ms, now_ms)
    if days <= 1:
        return ""
    # Claude Code's wording (SPEC), kept as data: a surfaced memory reads byte for byte as there.
    return (
        f"This memory is {days} days old. Memories are point-in-time observations, not live state — "
        "claims about code behavior or file:line citations may be outdated. Verify against current code "
        "before asserting as fact."
    )


def wrap_system_reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def memory_freshness_note(mtime_ms: float, now_ms: float) -> str:
    """The staleness prefix a Read of an old memory file gets, or ""."""
    text = memory_freshness_text(mtime_ms, now_ms)
    return f"<system-reminder>{text}</system-reminder>\n" if text else ""


TEAM_AUTHOR_NOTE = "written by a teammate"


def memory_header(path: str, mtime_ms: float, now_ms: float, *, dated: bool = True, team: bool = False) -> str:
    """The line above a surfaced memory, as the Claude Code release in use writes it.

    ``dated`` (2.1.88): ``Memory (saved today): <path>:``, or the staleness note, a blank line and
    ``Memory: <path>:``. Undated (2.1.330): always ``Memory: <path>:``, under the staleness note
    when there is one. A team memory (``team``) says who wrote it, since a teammate's words are not
    the user's: ``Team memory (written by a teammate, saved today): <path>:``.
    """
    freshness = memory_freshness_text(mtime_ms, now_ms)
    label = "Team memory" if team else "Memory"
    if team:
        undated = f"{label} ({TEAM_AUTHOR_NOTE}): {path}:"
        fresh = f"{label} ({TEAM_AUTHOR_NOTE}, saved {memory_age(mtime_ms, now_ms)}): {path}:"
    else:
        undated = f"{label}: {path}:"
        fresh = f"{label} (saved {memory_age(mtime_ms, now_ms)}): {path}:"
    if not dated:
        return f"{freshness}\n{undated}" if freshness else undated
    if freshness:
        return f"{freshness}\n\n{undated}"
    return fresh


class FileSlice(NamedTuple):
    """The head of a file kept within the line and byte limits, and which limit cut it."""

    content: str
    line_count: int  # lines kept
    truncated: bool
    truncated_by_bytes: bool


def read_file_in_range(
    path: str, *, max_lines: int = MAX_SURFACED_LINES, max_bytes: int = MAX_SURFACED_BYTES
) -> FileSlice:
    """The first whole lines of ``path`` that fit in ``max_lines`` and ``max_bytes`` (joins counted).

    As in Claude Code, a final newline counts as one more (empty) line, so a 200-line file that
    ends with a newline is reported as truncated. Only a bounded window of the file is read.
    """
    window = max(_READ_WINDOW, max_bytes * 2)
    with open_regular(path) as handle:
        data = handle.read(window + 1)
    complete = len(data) <= window
    text = data[:window].decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    kept: list[str] = []
    size = 0
    by_bytes = False
    for line in lines[:max_lines]:
        cost = len(line.encode("utf-8")) + (1 if kept else 0)
        if size + cost > max_bytes:
            by_bytes = True
            break
        kept.append(line)
        size += cost
    if not complete and not by_bytes and len(lines) <= max_lines:
        # The window ended inside the kept lines; only possible when lines are huge, so bytes overflow.
        by_bytes = True
    more_lines = len(lines) > max_lines or (not complete and not by_bytes)
    return FileSlice(
        content="\n".join(kept),
        line_count=len(kept),
        truncated=by_bytes or more_lines,
        truncated_by_bytes=by_bytes,
    )


class SurfacedMemory(NamedTuple):
    """One memory as surfaced into a turn; ``header`` is frozen at creation time."""

    path: str
    file: str
    content: str
    mtime_ms: float
    header: str
    truncated: bool
    limit: int | None  # lines kept, when truncated


def is_team_file(file: str) -> bool:
    """Whether a memory's name relative to the memory directory puts it in team memory."""
    return file.startswith("team/")


def read_memory_for_surfacing(
    path: str, *, file: str, mtime_ms: float, now_ms: float, dated: bool = True
) -> SurfacedMemory | None:
    """Read a selected memory within the limits; None when it cannot be read.

    The text is neutralised (:func:`memdir.model.markup.neutralise`): a memory is data, and
    nothing in it may open or close the block it is shown in.
    """
    try:
        piece = read_file_in_range(path)
    except (OSError, MemoryFormatError):
        return None
    content = neutralise(piece.content)
    shown_path = neutralise(path)
    if piece.truncated:
        reason = f"{MAX_SURFACED_BYTES} byte limit" if piece.truncated_by_bytes else f"first {MAX_SURFACED_LINES} lines"
        content += (  # Claude Code's wording (SPEC), kept as data
            f"\n\n> This memory file was truncated ({reason}). "
            f"Use the Read tool to view the complete file at: {shown_path}"
        )
    return SurfacedMemory(
        path=path,
        file=file,
        content=content,
        mtime_ms=mtime_ms,
        header=memory_header(shown_path, mtime_ms, now_ms, dated=dated, team=is_team_file(file)),
        truncated=piece.truncated,
        limit=piece.line_count if piece.truncated else None,
    )


def render_reminder(memory: SurfacedMemory) -> str:
    """The meta user message text for one surfaced memory."""
    return wrap_system_reminder(render_plain(memory))


def render_plain(memory: SurfacedMemory) -> str:
    """One surfaced memory without a tag around it: its header, a blank line, its content."""
    return f"{memory.header}\n\n{memory.content}"


def render_hook_context(memories: Sequence[SurfacedMemory], reminders: Sequence[str], *, tagged: bool) -> str:
    """Surfaced memories as a Claude Code hook's ``additionalContext``.

    Claude Code puts hook context inside a system reminder of its own. Releases that pass tags
    through (2.1.88, ``tagged``) get each memory as the ``<system-reminder>`` its own recall would
    show: ``reminders``, the recall's own rendering of ``memories``, used as it is rather than
    rendered twice. Releases that escape them (2.1.330, which would show the model
    ``&lt;system-reminder>``) get plain text: one line saying what follows, then each memory under
    its header.
    """
    if tagged:
        return "\n".join(reminders)
    from memdir.templates import render_template

    return "\n\n".join([render_template("recall_plain_lead"), *(render_plain(memory) for memory in memories)])
