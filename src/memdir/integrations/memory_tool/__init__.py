"""memdir as the backend of Anthropic's memory tool (extra ``anthropic``):
``from memdir.integrations.memory_tool import MEMORY_TOOL_BETA, MemdirMemoryTool``.

The commands, with no SDK, are :mod:`memdir.integrations.memory_tool.commands`; the SDK's classes
around them :mod:`memdir.integrations.memory_tool.backend`. Importing this package loads neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.integrations.memory_tool.backend import MEMORY_TOOL_BETA as MEMORY_TOOL_BETA
    from memdir.integrations.memory_tool.backend import AsyncMemdirMemoryTool as AsyncMemdirMemoryTool
    from memdir.integrations.memory_tool.backend import MemdirMemoryTool as MemdirMemoryTool

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.integrations.memory_tool.backend": ["MEMORY_TOOL_BETA", "AsyncMemdirMemoryTool", "MemdirMemoryTool"],
    },
)
