"""The public import path of memdir's the OpenAI Agents SDK adapter (``from memdir.integrations.openai_agents import
MemdirAgentMemory``); it lives in :mod:`memdir.integrations.frameworks.openai_agents`, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.integrations.frameworks.openai_agents import MemdirAgentMemory as MemdirAgentMemory
    from memdir.integrations.frameworks.openai_agents import combine_hooks as combine_hooks
    from memdir.integrations.frameworks.openai_agents import memdir_tools as memdir_tools
    from memdir.integrations.frameworks.openai_agents import to_conversation as to_conversation

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.integrations.frameworks.openai_agents": [
            "MemdirAgentMemory",
            "combine_hooks",
            "memdir_tools",
            "to_conversation",
        ],
    },
)
