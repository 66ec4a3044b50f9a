"""memdir for pydantic-ai agents: a capability, a toolset, and the handler of its ``MemoryTool``.

* :class:`MemdirCapability` (``Agent(..., capabilities=[MemdirCapability(memory_dir=PATH)])``)
  does for a pydantic-ai agent what Claude Code does with its memory: the memory section and the
  ``MEMORY.md`` index go into the instructions, the memories relevant to each new user prompt are
  added to that prompt's request before every model call of the turn (each memory once per
  conversation), the four tools (recall, remember, update, forget) are registered, and after a run
  memdir's extraction reads the run's messages with the session's model, in the background
  (``drain()`` waits for it), unless the agent saved a memory itself in that run.
* :func:`memdir_toolset` is the four tools alone, for an agent that wants no automatic recall.
* :func:`memory_tool` is the ``memory`` function tool that pydantic-ai's ``MemoryTool`` (Anthropic's
  ``memory_20250818``) needs the application to supply: its commands run on a memdir directory
  with memdir's containment, atomic locked writes and ``MEMORY.md`` upkeep
  (:mod:`memdir.integrations.memory_commands`, the backend of ``MemdirMemoryTool``).

Needs the ``pydantic-ai`` extra (``pip install 'memdir[pydantic-ai]'``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from memdir.errors import MemdirError
from memdir.integrations.agent_memory import TOOL_DESCRIPTIONS, AgentMemory, open_session, tool_functions
from memdir.integrations.memory_commands import MemoryCommands
from memdir.memory_session import MemorySession
from memdir.store.provenance import acting_as
from memdir.templates import load_sections

try:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        RetryPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.run import AgentRunResult
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the pydantic-ai adapter needs pydantic-ai: pip install 'memdir[pydantic-ai]'") from exc

__all__ = ["MemdirCapability", "memdir_toolset", "memory_tool", "to_conversation"]


def _tools(memory: AgentMemory) -> list[Tool[Any]]:
    return [
        Tool(function, takes_ctx=False, name=function.__name__, description=TOOL_DESCRIPTIONS[function.__name__])
        for function in tool_functions(memory)
    ]


def memdir_toolset(
    memory_dir: str | os.PathLike[str] | None = None, *, session: MemorySession | None = None
) -> FunctionToolset[Any]:
    """recall, remember, update and forget over a memdir directory (or a session's)."""
    return FunctionToolset(
        _tools(AgentMemory(open_session(memory_dir, session=session), extract=False, by="pydantic-ai"))
    )


def memory_tool(memory_dir: str | os.PathLike[str] | None = None, *, session: MemorySession | None = None) -> Tool[Any]:
    """The ``memory`` tool for pydantic-ai's ``MemoryTool``: pass it in ``tools=`` beside
    ``native_tools=[MemoryTool()]``. ``/memories`` is the memory directory; a refused command
    answers with its reason, as the Anthropic SDK's own backends do."""
    directory = open_session(memory_dir, session=session).memory_dir
    directory.ensure()
    commands = MemoryCommands(directory)

    def memory(
        command: str,
        path: str | None = None,
        view_range: list[int] | None = None,
        file_text: str | None = None,
        old_str: str | None = None,
        new_str: str | None = None,
        insert_line: int | None = None,
        insert_text: str | None = None,
        old_path: str | None = None,
        new_path: str | None = None,
    ) -> str:
        arguments = {
            "path": path,
            "view_range": view_range,
            "file_text": file_text,
            "old_str": old_str,
            "new_str": new_str,
            "insert_line": insert_line,
            "insert_text": insert_text,
            "old_path": old_path,
            "new_path": new_path,
        }
        try:
            with acting_as("memory-tool", label="pydantic-ai memory tool"):
                return _dispatch(commands, command, arguments)
        except MemdirError as exc:
            return f"Error: {exc.message}"

    return Tool(
        memory,
        takes_ctx=False,
        name="memory",
        description=load_sections("agent_tools")["tool memory"],
    )


def _dispatch(commands: MemoryCommands, command: str, args: dict[str, Any]) -> str:
    """One memory-tool command on the directory; a refusal raises MemdirError."""
    path = args["path"] or ""
    if command == "view":
        return commands.view(path or "/memories", args["view_range"])
    if command == "create":
        return commands.create(path, args["file_text"] or "")
    if command == "str_replace":
        return commands.str_replace(path, args["old_str"] or "", args["new_str"] or "")
    if command == "insert":
        return commands.insert(path, args["insert_line"] or 0, args["insert_text"] or "")
    if command == "delete":
        return commands.delete(path)
    if command == "rename":
        return commands.rename(args["old_path"] or "", args["new_path"] or "")
    return f"Error: unknown memory command {command!r}; use view, create, str_replace, insert, delete or rename"


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(item for item in content if isinstance(item, str))
    return ""


def to_conversation(messages: Sequence[ModelMessage], *, meta: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """pydantic-ai messages in memdir's message JSON (what extraction reads); a user part whose text
    is in ``meta`` (recall reminders) is marked as meta, as Claude Code marks its attachments."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    text = _text_of(part.content)
                    if text:
                        out.append({"role": "user", "content": text, "is_meta": text in meta})
                elif isinstance(part, ToolReturnPart | RetryPromptPart):
                    result = part.model_response_str() if isinstance(part, ToolReturnPart) else part.model_response()
                    block = {
                        "type": "tool_result",
                        "tool_use_id": part.tool_call_id,
                        "content": result,
                        "is_error": isinstance(part, RetryPromptPart),
                    }
                    out.append({"role": "user", "content": [block]})
        elif isinstance(message, ModelResponse):
            blocks: list[dict[str, Any]] = []
            for response_part in message.parts:
                if isinstance(response_part, TextPart) and response_part.content:
                    blocks.append({"type": "text", "text": response_part.content})
                elif isinstance(response_part, ToolCallPart):
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": response_part.tool_call_id,
                            "name": response_part.tool_name,
                            "input": response_part.args_as_dict(),
                        }
                    )
            if blocks:
                out.append({"role": "assistant", "content": blocks})
    return out


def _latest_prompt(messages: Sequence[ModelMessage]) -> tuple[int, str] | None:
    """The last request that carries a user prompt, and that prompt's text."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ModelRequest):
            texts = [_text_of(p.content) for p in message.parts if isinstance(p, UserPromptPart)]
            if any(texts):
                return index, "\n".join(t for t in texts if t)
    return None


@dataclass
class MemdirCapability(AbstractCapability[Any]):
    """Claude Code's memory for a pydantic-ai agent (see the module docstring).

    ``memory_dir`` is used as it is; ``session`` uses a :class:`MemorySession`'s directory and model;
    with neither, the project's directory as Claude Code resolves it. ``extract``: None extracts
    after a run when a model is configured for memdir, True requires one, False never extracts."""

    memory_dir: str | os.PathLike[str] | None = None
    session: MemorySession | None = None
    extract: bool | None = None
    tools: bool = True
    memory: AgentMemory = field(init=False, repr=False)
    _shown: set[str] = field(init=False, repr=False, default_factory=set)

    def __post_init__(self) -> None:
        self.memory = AgentMemory(
            open_session(self.memory_dir, session=self.session), extract=self.extract, by="pydantic-ai"
        )

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # built from Python objects, not from an agent spec file

    def get_instructions(self) -> Any:
        return self.memory.instructions

    def get_toolset(self) -> Any:
        return FunctionToolset(_tools(self.memory)) if self.tools else None

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        latest = _latest_prompt(request_context.messages)
        if latest is None:
            return request_context
        index, prompt = latest
        reminder = self.memory.reminder_text(prompt)
        if reminder is None:
            return request_context
        request = request_context.messages[index]
        assert isinstance(request, ModelRequest)
        if any(isinstance(p, UserPromptPart) and p.content == reminder for p in request.parts):
            return request_context  # already in the history this run carries
        self._shown.add(reminder)
        messages = list(request_context.messages)
        messages[index] = replace(request, parts=[*request.parts, UserPromptPart(content=reminder)])
        request_context.messages = messages
        return request_context

    async def after_run(self, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        self.memory.after_run(to_conversation(result.new_messages(), meta=frozenset(self._shown)))
        return result

    def drain(self, timeout: float = 60.0) -> bool:
        """Wait for the extraction started after the last run; False if still running at the timeout."""
        return self.memory.drain(timeout)
