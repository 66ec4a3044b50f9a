"""The coding agents memdir hooks into (Claude Code, Codex CLI, Gemini CLI), as one table.

The three CLIs run hooks of one shape (event -> matcher groups -> commands; the event's JSON on
stdin; ``hookSpecificOutput.additionalContext`` on stdout), but each names its events, settings
files, timeouts and transcripts its own way, and each knows something different about memory:

* **Claude Code** keeps the auto-memory directory itself and puts its ``MEMORY.md`` into every
  session; memdir adds recall, extraction and session notes. It may write a turn's last reply
  after the Stop hook ran, so the background commands wait for it.
* **Codex CLI** (``~/.codex/hooks.json``) and **Gemini CLI** (``hooks`` in ``settings.json``)
  know nothing of that directory: the session-start hook gives them memdir's memory section and
  the index, so the model reads and writes the same files as Claude Code. Both have the turn on
  disk before their end-of-turn hook runs. Codex tells a hook that compaction happened
  (``SessionStart`` with ``source: "compact"``); Gemini has no event after compression.

One :class:`CodingAgent` per CLI holds those differences; the hook handler
(:mod:`memdir.integrations.hooks.events`) and the installer (:mod:`memdir.integrations.hooks.install`)
read them here. The prompt hook imports this module, so it holds plain values only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["AGENTS", "AGENT_NAMES", "CLAUDE_CODE", "CODEX", "GEMINI", "CodingAgent", "find_agent"]


class CodingAgent(NamedTuple):
    """What memdir needs to know to hook into one coding-agent CLI."""

    name: str  # the --agent value, and the provenance of what its sessions write
    title: str  # for messages
    events: Mapping[str, str]  # memdir's hook verb -> the CLI's event name, for the verbs installed
    timeouts: Mapping[str, int]  # seconds the CLI gives each verb's command
    timeout_scale: int  # 1 when the CLI counts hook timeouts in seconds, 1000 in milliseconds
    extra: Mapping[str, Mapping[str, object]]  # per verb: more keys of the hook entry
    loads_memory: bool  # the CLI puts the memory directory's MEMORY.md into its sessions itself
    waits_for_turn: bool  # the end-of-turn hook may run before the transcript holds the turn
    compact_source: str | None  # the SessionStart ``source`` that says compaction happened


CLAUDE_CODE = CodingAgent(
    name="claude-code",
    title="Claude Code",
    events={
        "session-start": "SessionStart",
        "user-prompt-submit": "UserPromptSubmit",
        "stop": "Stop",
        "pre-compact": "PreCompact",
        "session-end": "SessionEnd",
    },
    # Recall must answer before the prompt goes out; the others only start background work.
    timeouts={"session-start": 15, "user-prompt-submit": 15, "stop": 30, "pre-compact": 30, "session-end": 30},
    timeout_scale=1,
    extra={"stop": {"async": True}},
    loads_memory=True,
    waits_for_turn=True,
    compact_source="compact",
)

# Codex waits for Stop before the turn ends and cuts SessionEnd's timeout to 3 s (with a warning
# when more is asked): both hooks only start background work and return at once.
CODEX = CodingAgent(
    name="codex",
    title="Codex CLI",
    events={
        "session-start": "SessionStart",
        "user-prompt-submit": "UserPromptSubmit",
        "stop": "Stop",
        "session-end": "SessionEnd",
    },
    timeouts={"session-start": 15, "user-prompt-submit": 15, "stop": 30, "session-end": 3},
    timeout_scale=1,
    extra={},
    loads_memory=False,
    waits_for_turn=False,
    compact_source="compact",
)

# Gemini's PreCompress fires before every model call, before the CLI decides whether to compress,
# so it says nothing about compaction and is not installed.
GEMINI = CodingAgent(
    name="gemini",
    title="Gemini CLI",
    events={
        "session-start": "SessionStart",
        "user-prompt-submit": "BeforeAgent",
        "stop": "AfterAgent",
        "session-end": "SessionEnd",
    },
    timeouts={"session-start": 15, "user-prompt-submit": 15, "stop": 30, "session-end": 30},
    timeout_scale=1000,
    extra={},
    loads_memory=False,
    waits_for_turn=False,
    compact_source=None,
)

AGENTS: Mapping[str, CodingAgent] = {agent.name: agent for agent in (CLAUDE_CODE, CODEX, GEMINI)}
AGENT_NAMES: tuple[str, ...] = tuple(AGENTS)


def find_agent(name: str) -> CodingAgent:
    """The agent called ``name``; a ``ConfigError`` naming the known ones otherwise."""
    agent = AGENTS.get(name)
    if agent is None:
        from memdir.errors import ConfigError

        raise ConfigError(f"unknown coding agent {name!r}; use one of: {', '.join(AGENTS)}", rule="hook-agent")
    return agent
