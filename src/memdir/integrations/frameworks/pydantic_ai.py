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
  (:mod:`memdir.integrations.memory_tool.commands`, the backend of ``MemdirMemoryTool``).

Needs the ``pydantic-ai`` extra (``pip install 'memdir[pydantic-ai]'``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from memdir.errors import MemdirError
from memdir.integrations.frameworks.agent_memory import (
    AgentMemory,
    open_session,
    place_reminders,
    tool_functions,
)
from memdir.integrations.memory_tool.commands import MemoryCommands, session_commands
from memdir.memory_session import MemorySession
from memdir.store.provenance import acting_as
from memdir.templates import load_sections
from memdir.tools.declared import tool_description

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
        Tool(function, takes_ctx=False, name=tool.name, description=tool_description(tool))
        for tool, function in tool_functions(memory)
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
    commands = session_commands(open_session(memory_dir, session=session))

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
        description=load_sections("memory_tools")["tool memory"],
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


def _prompts(messages: Sequence[ModelMessage], reminders: frozenset[str]) -> list[tuple[int, str]]:
    """Each request that carries a user prompt (recall reminders aside), and that prompt's text, in order."""
    found: list[tuple[int, str]] = []
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            texts = [_text_of(p.content) for p in message.parts if isinstance(p, UserPromptPart)]
            said = [text for text in texts if text and text not in reminders]
            if said:
                found.append((index, "\n".join(said)))
    return found


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
    user_id: str | None = None
    memory: AgentMemory = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.memory = AgentMemory(
            open_session(self.memory_dir, session=self.session, user_id=self.user_id),
            extract=self.extract,
            by="pydantic-ai",
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
        """Put every reminder of the conversation after the prompt it came after, unless the
        history already holds it: the latest prompt's new ones, and those of earlier turns that a
        history handed back without them (``result.all_messages()``) no longer carries."""
        prompts = _prompts(request_context.messages, self.memory.shown_texts())
        if not prompts:
            return request_context
        shown = self.memory.in_view(prompts[-1][1])
        present = {
            _text_of(part.content)
            for message in request_context.messages
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, UserPromptPart)
        }
        missing = [reminder for reminder in shown if reminder.text not in present]
        if not missing:
            return request_context
        messages = list(request_context.messages)
        for position, texts in place_reminders([prompt for _, prompt in prompts], missing).items():
            index = prompts[position][0]
            request = messages[index]
            assert isinstance(request, ModelRequest)
            messages[index] = replace(request, parts=[*request.parts, *(UserPromptPart(content=t) for t in texts)])
        request_context.messages = messages
        return request_context

    async def after_run(self, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        self.memory.after_run(to_conversation(result.new_messages(), meta=self.memory.shown_texts()))
        return result

    def drain(self, timeout: float = 60.0) -> bool:
        """Wait for the extraction started after the last run; False if still running at the timeout."""
        return self.memory.drain(timeout)
