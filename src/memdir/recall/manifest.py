"""The manifest: one line per memory header, the form selectors and agents read (SPEC §6.3).

Names and descriptions are neutralised (:mod:`memdir.model.markup`): a model reads them.
"""

from __future__ import annotations

from collections.abc import Iterable

from memdir.model.markup import neutralise
from memdir.model.timefields import iso_mtime
from memdir.store.scan import MemoryHeader

__all__ = ["format_manifest", "format_manifest_line"]


def format_manifest_line(header: MemoryHeader, *, nested_types: bool = True) -> str:
    """One manifest line. ``nested_types=False`` (Claude Code before 2.1.330) leaves untagged a
    memory whose type only the nested ``metadata:`` layout gives, as that release sees it."""
    shown = header.type if nested_types or not header.nested_type else None
    tag = f"[{shown.value}] " if shown is not None else ""
    suffix = f": {neutralise(header.description)}" if header.description else ""
    return f"- {tag}{neutralise(header.filename)} ({iso_mtime(header.mtime_ms)}){suffix}"


def format_manifest(headers: Iterable[MemoryHeader], *, nested_types: bool = True) -> str:
    return "\n".join(format_manifest_line(header, nested_types=nested_types) for header in headers)
