"""The public import path of memdir's Google ADK adapter (``from memdir.integrations.adk import
MemdirMemoryService``); it lives in :mod:`memdir.integrations.frameworks.adk`, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.integrations.frameworks.adk import MemdirMemoryService as MemdirMemoryService
    from memdir.integrations.frameworks.adk import to_conversation as to_conversation

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.integrations.frameworks.adk": ["MemdirMemoryService", "to_conversation"],
    },
)
