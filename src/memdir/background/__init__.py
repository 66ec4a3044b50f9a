"""The machinery shared by memdir's background agents (extraction, session notes, dream):
a turn-limited tool loop with sync and async drivers, and sandboxed memory-file tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.background.file_tools import Denial, MemoryFileTools
    from memdir.background.loop import AgentRun, Tool, ToolOutcome, agent_steps, arun_agent, run_agent

__all__ = [
    "AgentRun",
    "Denial",
    "MemoryFileTools",
    "Tool",
    "ToolOutcome",
    "agent_steps",
    "arun_agent",
    "run_agent",
]

_resolve = lazy_exports(
    __name__,
    {
        "Denial": "memdir.background.file_tools",
        "MemoryFileTools": "memdir.background.file_tools",
        "AgentRun": "memdir.background.loop",
        "Tool": "memdir.background.loop",
        "ToolOutcome": "memdir.background.loop",
        "agent_steps": "memdir.background.loop",
        "arun_agent": "memdir.background.loop",
        "run_agent": "memdir.background.loop",
    },
)


def __getattr__(name: str) -> Any:
    return _resolve(name)
