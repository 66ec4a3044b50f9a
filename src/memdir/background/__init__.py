"""The machinery shared by memdir's background agents (extraction, session notes, dream):
a turn-limited tool loop with sync and async drivers, and sandboxed memory-file tools."""

from __future__ import annotations

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
