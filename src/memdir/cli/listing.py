"""Choosing memories from the command line: the full listing, its filters, and name completion."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from datetime import datetime

import click
from click.shell_completion import CompletionItem

from memdir.config import MemoryConfig, open_index
from memdir.errors import MemdirError
from memdir.store.directory import MemoryDir
from memdir.store.index_db import IndexedMemoryDir
from memdir.store.scan import MemoryHeader

__all__ = ["all_headers", "complete_memory_file", "filter_headers", "one_line", "parse_since"]

_SPAN = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
_SPAN_MS = {"m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000}


def all_headers(config: MemoryConfig, memory_dir: MemoryDir) -> list[MemoryHeader]:
    """Every memory, newest first, through the derived index.

    The index keeps each file's parsed header keyed by (mtime, size), so listing 20,000 memories
    costs one ``stat`` per file instead of parsing 20,000 frontmatters. It is a cache outside the
    memory directory; when it cannot be used (a read-only config home), the files are scanned.
    """
    from memdir.store.history_watch import record_external

    record_external(memory_dir)  # what is listed is in the history, an outside edit included
    if isinstance(memory_dir, IndexedMemoryDir):
        return memory_dir.headers()
    try:
        with open_index(config) as index:
            return list(index.headers())
    except (OSError, MemdirError, sqlite3.Error):
        return memory_dir.headers()


def parse_since(value: str | None, now: float) -> float | None:
    """``--since`` as epoch milliseconds: a span back from ``now`` (90m, 12h, 7d, 2w) or a date/time."""
    if value is None:
        return None
    span = _SPAN.match(value)
    if span is not None:
        return now * 1000 - int(span.group(1)) * _SPAN_MS[span.group(2)]
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is neither a date (2026-03-01, 2026-03-01T09:30) nor a span (90m, 12h, 7d, 2w)",
            param_hint="'--since'",
        ) from None
    return when.timestamp() * 1000


def filter_headers(
    headers: Sequence[MemoryHeader], *, types: Sequence[str] = (), since_ms: float | None = None, pattern: str | None
) -> list[MemoryHeader]:
    """The headers that pass every filter given (type, changed since, regex over file/name/description)."""
    regex = None
    if pattern is not None:
        try:
            regex = re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise click.BadParameter(f"{pattern!r} is not a regular expression: {exc}", param_hint="'--grep'") from None
    kept = []
    for h in headers:
        if types and (h.type is None or h.type.value not in types):
            continue
        if since_ms is not None and h.mtime_ms < since_ms:
            continue
        if regex is not None and not any(regex.search(text or "") for text in (h.filename, h.name, h.description)):
            continue
        kept.append(h)
    return kept


def one_line(text: str | None) -> str:
    """A description as the one line a listing shows (a hand-written multi-line one is folded)."""
    return " ".join((text or "").split())


def complete_memory_file(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Shell completion of memory file names, for ``show``, ``edit``, ``rm`` and ``mv``.

    Completion must never fail the shell: any problem resolving the directory completes nothing.
    """
    from memdir.cli.main import CliState

    state = ctx.find_object(CliState)
    try:
        root = ctx.find_root()
        if state is None:
            params = root.params
            state = CliState(project=params.get("project"), memory_dir_option=params.get("memory_dir"))
        headers = state.memory_dir.headers()
    except (MemdirError, OSError):
        return []
    return [CompletionItem(h.filename) for h in headers if h.filename.startswith(incomplete)]
