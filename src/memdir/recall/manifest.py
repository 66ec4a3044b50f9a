"""The manifest: one line per memory header, the form selectors and agents read (SPEC §6.3)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from memdir.store.scan import MemoryHeader

__all__ = ["format_manifest", "format_manifest_line", "iso_mtime"]


def iso_mtime(mtime_ms: float) -> str:
    """JS ``Date.toISOString``: UTC, milliseconds, ``Z``."""
    moment = datetime.fromtimestamp(int(mtime_ms) // 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(mtime_ms) % 1000:03d}Z"


def format_manifest_line(header: MemoryHeader) -> str:
    tag = f"[{header.type.value}] " if header.type is not None else ""
    suffix = f": {header.description}" if header.description else ""
    return f"- {tag}{header.filename} ({iso_mtime(header.mtime_ms)}){suffix}"


def format_manifest(headers: Iterable[MemoryHeader]) -> str:
    return "\n".join(format_manifest_line(header) for header in headers)
