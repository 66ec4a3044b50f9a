"""The name of a memory directory's index file, on its own so that a scan needs nothing else of
:mod:`memdir.model.index` (every hook scans; few touch the index)."""

from __future__ import annotations

__all__ = ["ENTRYPOINT_NAME"]

ENTRYPOINT_NAME = "MEMORY.md"
