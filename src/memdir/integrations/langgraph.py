"""The public import path of memdir's LangGraph adapter (``from memdir.integrations.langgraph import
MemdirStore``); it lives in :mod:`memdir.integrations.frameworks.langgraph`, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.integrations.frameworks.langgraph import MemdirStore as MemdirStore

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.integrations.frameworks.langgraph": ["MemdirStore"],
    },
)
