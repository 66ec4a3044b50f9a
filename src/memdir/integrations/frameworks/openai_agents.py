"""memdir for the OpenAI Agents SDK: function tools, per-turn recall before each model call, and
extraction after a run.

:class:`MemdirAgentMemory` holds one conversation's memory and gives the SDK three things:

* ``tools``: recall, remember, update and forget as function tools (``Agent(tools=memory.tools)``);
* ``run_config()``: a ``RunConfig`` whose ``call_model_input_filter`` adds, before every model
  call, the memory section and the ``MEMORY.md`` index to the instructions and the memories
  relevant to the latest user message right after it (each memory once per conversation), as
  Claude Code's prompt hook does; ``input_filter`` is the filter alone, for a config of your own;
* ``hooks``: ``RunHooks`` that collect what the model saw and said and, when the agent ends, hand
  the run to memdir's extraction with the session's model, in the background (``drain()`` waits),
  unless the agent saved a memory itself in that run; :func:`combine_hooks` joins them with the
  application's own.

The SDK's sandbox memory (``agents.sandbox.capabilities.Memory``) cannot share a memdir directory:
its ``MEMORY.md`` is a handbook that its consolidation phase rewrites whole, where memdir's is an
index of links to topic files, and its reader loads ``memory_summary.md`` only. docs/frameworks.md
says what corresponds.

Needs the ``openai-agents`` extra (``pip install 'memdir[openai-agents]'``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from memdir.integrations.frameworks.agent_memory import (
    AgentMemory,
    open_session,
    place_reminders,
    tool_functions,
)
from memdir.memory_session import MemorySession
from memdir.tools.declared import tool_description

try:
    from agents import Agent, FunctionTool, RunConfig, RunContextWrapper, RunHooks, function_tool
    from agents.items import ModelResponse, TResponseInputItem
    from agents.run import CallModelData, ModelInputData
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the OpenAI Agents SDK adapter needs openai-agents: pip install 'memdir[openai-agents]'") from exc

__all__ = ["MemdirAgentMemory", "combine_hooks", "memdir_tools", "to_conversation"]


def _tools(memory: AgentMemory) -> list[FunctionTool]:
    return [
        function_tool(function, name_override=tool.name, description_override=tool_description(tool))
        for tool, function in tool_functions(memory)
    ]


def memdir_tools(
    memory_dir: str | os.PathLike[str] | None = None, *, session: MemorySession | None = None
) -> list[FunctionTool]:
    """recall, remember, update and forget over a memdir directory (or a session's), as function tools."""
    return _tools(AgentMemory(open_session(memory_dir, session=session), extract=False, by="openai-agents"))


def _plain(item: object) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    return dict(dump(exclude_unset=True)) if callable(dump) else {}


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [_plain(part) for part in content]
        return "\n".join(str(p.get("text")) for p in parts if p.get("type") in ("input_text", "output_text", "text"))
    return ""


def _convert(item: dict[str, Any], meta: frozenset[str]) -> dict[str, Any] | None:
    kind = item.get("type")
    role = item.get("role")
    if kind == "function_call":
        try:
            arguments = json.loads(item.get("arguments") or "{}")
        except ValueError:
            arguments = {"arguments": item.get("arguments")}
        block = {"type": "tool_use", "id": item.get("call_id"), "name": item.get("name"), "input": arguments}
        return {"role": "assistant", "content": [block]}
    if kind == "function_call_output":
        output = item.get("output")
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
        result = {"type": "tool_result", "tool_use_id": item.get("call_id"), "content": text}
        return {"role": "user", "content": [result]}
    if role in ("user", "assistant") and kind in (None, "message"):
        text = _text(item.get("content"))
        if not text:
            return None
        if role == "assistant":
            return {"role": "assistant", "content": [{"type": "text", "text": text}]}
        return {"role": "user", "content": text, "is_meta": text in meta}
    return None


def to_conversation(items: Sequence[object], *, meta: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Responses-format items in memdir's message JSON (what extraction reads), each with a stable
    ``uuid`` (the item's id, else a digest of it and how many identical items came before), so the
    same history handed over twice is extracted once. A user message whose text is in ``meta``
    (a recall reminder) is marked meta, as Claude Code marks its attachments."""
    out: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for raw in items:
        item = _plain(raw)
        converted = _convert(item, meta)
        if converted is None:
            continue
        digest = hashlib.sha1(json.dumps(item, sort_keys=True, default=str).encode()).hexdigest()[:16]
        counts[digest] = counts.get(digest, 0) + 1
        converted["uuid"] = str(item.get("id") or f"{digest}-{counts[digest]}")
        out.append(converted)
    return out


class _ExtractionHooks(RunHooks[Any]):
    """Keeps the latest model input and output of a run; at the agent's end, extraction reads them."""

    def __init__(self, owner: MemdirAgentMemory) -> None:
        self.owner = owner
        self.items: list[object] = []

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        self.items = list(input_items)

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse) -> None:
        self.items.extend(response.output)

    async def on_agent_end(self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any) -> None:
        items, self.items = self.items, []
        memory = self.owner.memory
        memory.after_run(to_conversation(items, meta=memory.shown_texts()))


class _EveryHooks(RunHooks[Any]):
    """Each event handed to every one of ``hooks``, in order (see :func:`combine_hooks`)."""

    def __init__(self, hooks: Sequence[RunHooks[Any]]) -> None:
        self.hooks = tuple(hooks)

    async def _each(self, event: str, *args: Any, **kwargs: Any) -> None:
        for hook in self.hooks:
            await getattr(hook, event)(*args, **kwargs)

    async def on_agent_start(self, *args: Any, **kwargs: Any) -> None:
        await self._each("on_agent_start", *args, **kwargs)

    async def on_agent_end(self, *args: Any, **kwargs: Any) -> None:
        await self._each("on_agent_end", *args, **kwargs)

    async def on_handoff(self, *args: Any, **kwargs: Any) -> None:
        await self._each("on_handoff", *args, **kwargs)

    async def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
        await self._each("on_tool_start", *args, **kwargs)

    async def on_tool_end(self, *args: Any, **kwargs: Any) -> None:
        await self._each("on_tool_end", *args, **kwargs)

    async def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        await self._each("on_llm_start", *args, **kwargs)

    async def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        await self._each("on_llm_end", *args, **kwargs)


def combine_hooks(*hooks: RunHooks[Any] | None) -> RunHooks[Any]:
    """One ``RunHooks`` that hands every event to each of ``hooks`` in turn (None are left out):
    ``Runner.run(..., hooks=combine_hooks(memory.hooks, MyHooks()))`` keeps memdir's extraction
    and the application's own hooks, where the SDK takes one object."""
    given = [hook for hook in hooks if hook is not None]
    return given[0] if len(given) == 1 else _EveryHooks(given)


def _user_items(items: Sequence[object], reminders: frozenset[str]) -> list[tuple[int, str]]:
    """Each user message of a model input (recall reminders aside), and its text, in order."""
    found: list[tuple[int, str]] = []
    for index, raw in enumerate(items):
        item = _plain(raw)
        if item.get("role") == "user" and item.get("type") in (None, "message"):
            text = _text(item.get("content"))
            if text and text not in reminders:
                found.append((index, text))
    return found


class MemdirAgentMemory:
    """Claude Code's memory for an OpenAI Agents SDK agent (see the module docstring).

    ``memory_dir`` is used as it is; ``session`` uses a :class:`MemorySession`'s directory and model;
    with neither, the project's directory as Claude Code resolves it. ``user_id`` picks one user's
    directory of a ``memory_dir`` that names ``{user_id}``. ``extract``: None extracts after a run
    when a model is configured for memdir, True requires one, False never extracts."""

    def __init__(
        self,
        memory_dir: str | os.PathLike[str] | None = None,
        *,
        session: MemorySession | None = None,
        extract: bool | None = None,
        user_id: str | None = None,
    ) -> None:
        self.memory = AgentMemory(
            open_session(memory_dir, session=session, user_id=user_id), extract=extract, by="openai-agents"
        )
        self.tools = _tools(self.memory)
        self.hooks: RunHooks[Any] = _ExtractionHooks(self)

    def input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """The ``call_model_input_filter``: the memory instructions, and every reminder of the
        conversation right after the user message it came after (the latest message's new ones,
        and those of earlier turns that a history passed back with ``result.to_input_list()``,
        which never holds them, would otherwise lose)."""
        model_data = data.model_data
        section = self.memory.instructions()
        instructions = model_data.instructions
        if section:
            instructions = f"{instructions}\n\n{section}" if instructions else section
        items = list(model_data.input)
        users = _user_items(items, self.memory.shown_texts())
        if users:
            shown = self.memory.in_view(users[-1][1])
            present = {_text(_plain(item).get("content")) for item in items}
            missing = [reminder for reminder in shown if reminder.text not in present]
            placed = place_reminders([text for _, text in users], missing)
            for position in sorted(placed, reverse=True):  # from the end, so earlier indexes hold
                after = users[position][0] + 1
                items[after:after] = [{"role": "user", "content": text} for text in placed[position]]
        return ModelInputData(input=items, instructions=instructions)

    def run_config(self, **options: Any) -> RunConfig:
        """A ``RunConfig`` with :meth:`input_filter` (``options`` are its other fields)."""
        return RunConfig(call_model_input_filter=self.input_filter, **options)

    def drain(self, timeout: float = 60.0) -> bool:
        """Wait for the extraction started after the last run; False if still running at the timeout."""
        return self.memory.drain(timeout)
