"""The public import path of memdir's pydantic-ai adapter (``from memdir.integrations.pydantic_ai import
MemdirCapability``); it lives in :mod:`memdir.integrations.frameworks.pydantic_ai`, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.integrations.frameworks.pydantic_ai import MemdirCapability as MemdirCapability
    from memdir.integrations.frameworks.pydantic_ai import memdir_toolset as memdir_toolset
    from memdir.integrations.frameworks.pydantic_ai import memory_tool as memory_tool
    from memdir.integrations.frameworks.pydantic_ai import to_conversation as to_conversation

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.integrations.frameworks.pydantic_ai": [
            "MemdirCapability",
            "memdir_toolset",
            "memory_tool",
            "to_conversation",
        ],
    },
)
