"""The machinery shared by memdir's background agents (extraction, session notes, dream):
a turn-limited tool loop with sync and async drivers, and sandboxed memory-file tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.background.file_tools import Denial as Denial
    from memdir.background.file_tools import MemoryFileTools as MemoryFileTools
    from memdir.background.loop import AgentRun as AgentRun
    from memdir.background.loop import Tool as Tool
    from memdir.background.loop import ToolOutcome as ToolOutcome
    from memdir.background.loop import agent_steps as agent_steps
    from memdir.background.loop import arun_agent as arun_agent
    from memdir.background.loop import run_agent as run_agent

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.background.file_tools": ["Denial", "MemoryFileTools"],
        "memdir.background.loop": ["AgentRun", "Tool", "ToolOutcome", "agent_steps", "arun_agent", "run_agent"],
    },
)
