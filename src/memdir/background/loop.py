"""A turn-limited tool loop, written once as a generator and driven sync or async.

The generator yields each :class:`~memdir.llm.ChatRequest` and receives the model's
:class:`~memdir.llm.Completion`; it runs the requested tools itself (they are fast, local file
operations) and returns an :class:`AgentRun`. :func:`run_agent` and :func:`arun_agent` hand it to
memdir's one step driver (:mod:`memdir.llm.steps`), so the loop's rules exist in one place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memdir.llm.base import ChatModel, ChatRequest, Completion, Message, ToolCall, ToolResult, ToolSpec, Usage
from memdir.llm.steps import arun_steps, run_steps

__all__ = ["AgentRun", "Tool", "ToolOutcome", "agent_steps", "arun_agent", "run_agent"]

log = logging.getLogger("memdir.background")


@dataclass(frozen=True)
class ToolOutcome:
    content: str
    is_error: bool = False


class Tool(Protocol):
    """A tool the model may call: its declaration and its implementation."""

    @property
    def spec(self) -> ToolSpec: ...

    def __call__(self, arguments: Mapping[str, object]) -> ToolOutcome: ...


@dataclass
class AgentRun:
    """What a run did: turns used, every tool call with its outcome, the final text, token usage."""

    turns: int = 0
    stopped: str = "done"  # "done" (the model stopped calling tools) or "max_turns"
    final_text: str = ""
    calls: list[tuple[ToolCall, ToolOutcome]] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


def _add_usage(total: Usage, more: Usage) -> Usage:
    return Usage(
        input_tokens=total.input_tokens + more.input_tokens,
        output_tokens=total.output_tokens + more.output_tokens,
        cache_read_input_tokens=total.cache_read_input_tokens + more.cache_read_input_tokens,
        cache_creation_input_tokens=total.cache_creation_input_tokens + more.cache_creation_input_tokens,
    )


def _call_tool(tools: Mapping[str, Tool], call: ToolCall) -> ToolOutcome:
    tool = tools.get(call.name)
    if tool is None:
        allowed = ", ".join(sorted(tools)) or "none"
        log.warning("refused unknown tool %s", call.name)
        return ToolOutcome(f"Tool {call.name!r} is not available here. Available tools: {allowed}.", is_error=True)
    return tool(call.input)


def agent_steps(
    *,
    system: str,
    messages: Sequence[Message],
    tools: Sequence[Tool],
    max_turns: int | None,
    max_tokens: int = 4096,
    timeout: float = 120.0,
    on_turn: Callable[[int], None] | None = None,
) -> Generator[ChatRequest, Completion, AgentRun]:
    """The loop: ask, run the tools asked for, answer with their results, until done or out of turns.

    A turn is one model call. With ``max_turns`` reached, the run stops even if the model asked
    for more tools; those last calls are still executed, so work already decided is not lost.
    """
    by_name = {tool.spec.name: tool for tool in tools}
    specs = tuple(tool.spec for tool in tools)
    run = AgentRun(messages=list(messages))
    while max_turns is None or run.turns < max_turns:
        if on_turn is not None:
            on_turn(run.turns + 1)
        request = ChatRequest(
            system=system, messages=tuple(run.messages), tools=specs, max_tokens=max_tokens, timeout=timeout
        )
        completion = yield request
        run.turns += 1
        run.usage = _add_usage(run.usage, completion.usage)
        run.messages.append(Message(role="assistant", text=completion.text, tool_calls=completion.tool_calls))
        if completion.text:
            run.final_text = completion.text
        if not completion.tool_calls:
            run.stopped = "done"
            return run
        results = []
        for call in completion.tool_calls:
            outcome = _call_tool(by_name, call)
            run.calls.append((call, outcome))
            results.append(ToolResult(tool_call_id=call.id, content=outcome.content, is_error=outcome.is_error))
        run.messages.append(Message(role="user", tool_results=tuple(results)))
    run.stopped = "max_turns"
    return run


def run_agent(model: ChatModel, steps: Generator[ChatRequest, Completion, AgentRun]) -> AgentRun:
    """Drive :func:`agent_steps` with a synchronous model."""
    return run_steps(steps, model.complete)


async def arun_agent(model: ChatModel, steps: Generator[ChatRequest, Completion, AgentRun]) -> AgentRun:
    """Drive :func:`agent_steps` with an asynchronous model."""
    return await arun_steps(steps, model.acomplete)
