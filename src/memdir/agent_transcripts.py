"""Codex CLI and Gemini CLI transcripts, read as the conversation memdir's background agents see.

Both CLIs write one JSON object per line, like Claude Code, in shapes of their own:

* **Codex CLI**, ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``: lines
  ``{timestamp, type, payload}``, the first a ``session_meta``. The conversation is the
  ``response_item`` lines: messages (``role`` user, assistant or developer, ``content[].text``),
  tool calls (``function_call``, ``custom_tool_call``, ``local_shell_call``) and their outputs.
  Developer messages are the CLI's instructions and what hooks added (marked
  ``hooks.additional_context``), and some user messages are context the CLI adds itself
  (``<environment_context>``, the AGENTS.md instructions): none of it is the person's.
* **Gemini CLI**, ``~/.gemini/tmp/<project>/chats/session-<date>-<id>.jsonl``: a header line
  ``{sessionId, projectHash, startTime, kind}``, message lines ``{id, type: user | gemini,
  content, toolCalls, …}`` (a later line with the same id replaces the message) and ``{"$set":
  …}`` patches of the record (``messages`` replaces the list). User messages hold, as the CLI sent
  them, the ``<hook_context>`` blocks hooks added and the ``<session_context>`` it adds itself.

Both are parsed here into :class:`~memdir.conversation.ConversationMessage` values with the
context the CLIs and memdir added left out, so extraction reads what the person and the model
said. :func:`transcript_agent` tells the formats apart by the first line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from memdir.conversation import Block, ConversationMessage, json_lines
from memdir.model.hook_context import strip_hook_context

__all__ = ["file_agent", "parse_codex_rollout", "parse_gemini_chat", "transcript_agent"]

# User messages Codex adds itself (the AGENTS.md files, the working environment, skills).
_CODEX_CONTEXT = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<skills_instructions>")
_CODEX_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_CODEX_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_GEMINI_CONTEXT = "<session_context>"


def transcript_agent(first_line: str) -> str | None:
    """``codex`` or ``gemini`` when a transcript's first line is that CLI's, else None."""
    try:
        entry = json.loads(first_line)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    if entry.get("type") == "session_meta":
        return "codex"
    if "sessionId" in entry and "projectHash" in entry:
        return "gemini"
    return None


def file_agent(path: str) -> str | None:
    """``codex`` or ``gemini`` when the file at ``path`` is that CLI's transcript, else None
    (Claude Code's, memdir's message JSON, or a file that cannot be read: its reader says why)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
    except OSError:
        return None
    return transcript_agent(first)


def _texts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [str(part.get("text")) for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]


def _arguments(raw: object) -> Mapping[str, object]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"input": raw}
        return parsed if isinstance(parsed, dict) else {"input": parsed}
    return {}


def _output_text(raw: object) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict) and isinstance(raw.get("output"), str):
        return str(raw["output"])
    texts = _texts(raw)
    return "\n".join(texts) if texts else json.dumps(raw, ensure_ascii=False)


def _codex_hook_context(payload: Mapping[str, Any]) -> bool:
    meta = payload.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    return isinstance(kinds, list) and any(isinstance(k, str) and k.startswith("hooks.") for k in kinds)


def _codex_message(payload: Mapping[str, Any], uuid: str, timestamp: str | None) -> ConversationMessage | None:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        if role not in ("user", "assistant") or _codex_hook_context(payload):
            return None
        texts = [t for t in _texts(payload.get("content")) if t.strip()]
        if role == "user":
            texts = [t for t in texts if not t.lstrip().startswith(_CODEX_CONTEXT)]
        if not texts:
            return None
        blocks = tuple(Block(type="text", text=t) for t in texts)
        return ConversationMessage(
            uuid=uuid, role="assistant" if role == "assistant" else "user", blocks=blocks, timestamp=timestamp
        )
    if kind in _CODEX_CALLS:
        raw = payload.get("arguments", payload.get("input", payload.get("action")))
        call = Block(
            type="tool_use",
            id=str(payload.get("call_id") or uuid),
            name=str(payload.get("name") or kind),
            input=_arguments(raw),
        )
        return ConversationMessage(uuid=uuid, role="assistant", blocks=(call,), timestamp=timestamp)
    if kind in _CODEX_OUTPUTS:
        result = Block(
            type="tool_result", tool_use_id=str(payload.get("call_id") or ""), text=_output_text(payload.get("output"))
        )
        return ConversationMessage(uuid=uuid, role="user", blocks=(result,), timestamp=timestamp)
    return None


def parse_codex_rollout(lines: Iterable[str], *, source: str = "<transcript>") -> list[ConversationMessage]:
    """The conversation of a Codex CLI rollout file, oldest first, without the context the CLI and
    its hooks added. A message's uuid is its ``id`` (or its line), which later reads keep."""
    messages: list[ConversationMessage] = []
    for number, entry in json_lines(lines, source, "Codex CLI"):
        payload = entry.get("payload")
        if entry.get("type") != "response_item" or not isinstance(payload, dict):
            continue
        uuid = str(payload.get("id") or f"line-{number}")
        timestamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        message = _codex_message(payload, uuid, timestamp)
        if message is not None:
            messages.append(message)
    return messages


def _gemini_records(lines: Iterable[str], source: str) -> list[dict[str, Any]]:
    """The chat's messages as the record holds them once every line and patch is applied."""
    records: dict[str, dict[str, Any]] = {}
    for number, entry in json_lines(lines, source, "Gemini CLI"):
        patch = entry.get("$set")
        if isinstance(patch, dict):
            if isinstance(patch.get("messages"), list):
                records = {}
                for index, item in enumerate(patch["messages"]):
                    if isinstance(item, dict):
                        records[str(item.get("id") or f"{number}.{index}")] = item
            continue
        if entry.get("type") in ("user", "gemini"):
            records[str(entry.get("id") or f"line-{number}")] = entry
    return [{**record, "id": key} for key, record in records.items()]


def _gemini_message(record: Mapping[str, Any]) -> list[ConversationMessage]:
    uuid, timestamp = str(record["id"]), record.get("timestamp")
    stamp = timestamp if isinstance(timestamp, str) else None
    texts = [strip_hook_context(t) for t in _texts(record.get("content"))]
    texts = [t for t in texts if t.strip()]
    if record.get("type") == "user":
        texts = [t for t in texts if not t.lstrip().startswith(_GEMINI_CONTEXT)]
        blocks = tuple(Block(type="text", text=t) for t in texts)
        return [ConversationMessage(uuid=uuid, role="user", blocks=blocks, timestamp=stamp)] if blocks else []
    calls = [c for c in record.get("toolCalls") or [] if isinstance(c, dict)]
    said = [Block(type="text", text=t) for t in texts]
    uses = [
        Block(
            type="tool_use", id=str(c.get("id") or ""), name=str(c.get("name") or ""), input=_arguments(c.get("args"))
        )
        for c in calls
    ]
    out: list[ConversationMessage] = []
    if said or uses:
        out.append(ConversationMessage(uuid=uuid, role="assistant", blocks=(*said, *uses), timestamp=stamp))
    results = [
        Block(
            type="tool_result",
            tool_use_id=str(c.get("id") or ""),
            text=_output_text(c.get("resultDisplay") or c.get("result")),
        )
        for c in calls
        if c.get("result") is not None or c.get("resultDisplay") is not None
    ]
    if results:
        out.append(ConversationMessage(uuid=f"{uuid}.results", role="user", blocks=tuple(results), timestamp=stamp))
    return out


def parse_gemini_chat(lines: Iterable[str], *, source: str = "<transcript>") -> list[ConversationMessage]:
    """The conversation of a Gemini CLI chat file, oldest first, without the ``<hook_context>``
    blocks hooks added and the ``<session_context>`` the CLI adds. A message's uuid is its ``id``."""
    return [message for record in _gemini_records(lines, source) for message in _gemini_message(record)]
