"""Conversations as memdir's background agents see them, read from Claude Code or memdir files.

Extraction, session notes, dream and the Claude Code hooks all start from "the conversation so
far". It arrives either as a Claude Code transcript (``.jsonl``, one entry per line, threaded by
``parentUuid``) or as memdir's own message JSON (``{"messages": [...]}``, the shape agent
loops already hold). Both are parsed here, once, into :class:`ConversationMessage` values.

memdir's own message JSON::

    {"messages": [
        {"role": "user", "content": "text"},
        {"role": "assistant", "id": "msg_1", "usage": {"input_tokens": 10, "output_tokens": 5},
         "content": [{"type": "text", "text": "..."},
                     {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "..."}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
    ]}

A bare JSON list of messages is accepted too; ``uuid`` is optional (positions are used).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from memdir.errors import ConfigError

__all__ = [
    "Block",
    "ConversationMessage",
    "json_lines",
    "load_conversation",
    "parse_message_json",
    "parse_transcript_lines",
    "render_conversation",
]

Role = Literal["user", "assistant", "system"]


@dataclass(frozen=True)
class Block:
    """One content block: text, tool_use, tool_result, thinking, image, document, ..."""

    type: str
    text: str = ""
    id: str | None = None  # tool_use
    name: str | None = None  # tool_use
    input: Mapping[str, object] = field(default_factory=dict)  # tool_use
    tool_use_id: str | None = None  # tool_result
    is_error: bool = False  # tool_result


@dataclass(frozen=True)
class ConversationMessage:
    uuid: str
    role: Role
    blocks: tuple[Block, ...]
    message_id: str | None = None  # the API message id; split records of one response share it
    usage: Mapping[str, int] | None = None
    is_meta: bool = False
    is_compact_summary: bool = False
    is_compact_boundary: bool = False
    timestamp: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.blocks if block.type == "text" and block.text)

    def tool_uses(self) -> list[Block]:
        return [block for block in self.blocks if block.type == "tool_use"]

    def tool_results(self) -> list[Block]:
        return [block for block in self.blocks if block.type == "tool_result"]


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(item.get("text", "")) for item in content if isinstance(item, dict) and item.get("type") == "text"
        )
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _parse_blocks(content: object) -> tuple[Block, ...]:
    if isinstance(content, str):
        return (Block(type="text", text=content),) if content else ()
    if not isinstance(content, list):
        return ()
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(Block(type="text", text=item))
            continue
        if not isinstance(item, dict):
            continue
        kind = str(item.get("type", "text"))
        if kind == "text":
            blocks.append(Block(type="text", text=str(item.get("text", ""))))
        elif kind == "tool_use":
            raw_input = item.get("input")
            blocks.append(
                Block(
                    type="tool_use",
                    id=str(item.get("id", "")),
                    name=str(item.get("name", "")),
                    input=raw_input if isinstance(raw_input, dict) else {},
                )
            )
        elif kind == "tool_result":
            blocks.append(
                Block(
                    type="tool_result",
                    tool_use_id=str(item.get("tool_use_id", "")),
                    text=_result_text(item.get("content")),
                    is_error=bool(item.get("is_error", False)),
                )
            )
        elif kind == "thinking":
            blocks.append(Block(type="thinking", text=str(item.get("thinking", ""))))
        else:
            blocks.append(Block(type=kind))
    return tuple(blocks)


def _usage(raw: object) -> Mapping[str, int] | None:
    if not isinstance(raw, dict):
        return None
    return {str(k): int(v) for k, v in raw.items() if isinstance(v, int) and not isinstance(v, bool)}


def _message_from_entry(entry: Mapping[str, object], fallback_uuid: str) -> ConversationMessage | None:
    kind = entry.get("type")
    if kind == "system":
        is_boundary = entry.get("subtype") == "compact_boundary"
        return ConversationMessage(
            uuid=str(entry.get("uuid") or fallback_uuid),
            role="system",
            blocks=(Block(type="text", text=str(entry.get("content", ""))),),
            is_compact_boundary=is_boundary,
            is_meta=bool(entry.get("isMeta", False)),
            timestamp=_str_or_none(entry.get("timestamp")),
        )
    if kind not in ("user", "assistant"):
        return None
    message = entry.get("message")
    if not isinstance(message, dict):
        return None
    return ConversationMessage(
        uuid=str(entry.get("uuid") or fallback_uuid),
        role="assistant" if kind == "assistant" else "user",
        blocks=_parse_blocks(message.get("content")),
        message_id=_str_or_none(message.get("id")),
        usage=_usage(message.get("usage")),
        is_meta=bool(entry.get("isMeta", False)),
        is_compact_summary=bool(entry.get("isCompactSummary", False)),
        timestamp=_str_or_none(entry.get("timestamp")),
    )


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def json_lines(lines: Iterable[str], source: str, agent: str) -> list[tuple[int, dict[str, Any]]]:
    """Each line's JSON object, with its number, in a transcript ``agent`` writes. A malformed last
    line is being written and is left out; a malformed line before it is an error, because silently
    dropping the middle of a conversation would mislead the agents."""
    found: list[tuple[int, dict[str, Any]]] = []
    pending_error: str | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if pending_error is not None:
            raise ConfigError(pending_error, rule="transcript", path=source)
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            pending_error = f"{source} line {number} is not valid JSON ({exc.msg}); is this a {agent} transcript?"
            continue
        if isinstance(entry, dict):
            found.append((number, entry))
    return found


def parse_transcript_lines(lines: Iterable[str], *, source: str = "<transcript>") -> list[ConversationMessage]:
    """The live thread of a Claude Code transcript, oldest first.

    The thread is rebuilt by walking ``parentUuid`` back from the newest conversation entry, so
    abandoned branches (edits, retries) drop out; subagent (sidechain) entries are skipped. A
    malformed last line (a transcript being written) is ignored; a malformed line elsewhere is an
    error, because silently dropping the middle of a conversation would mislead the agents.
    A Codex CLI or Gemini CLI transcript (told by its first line) is read by its own parser
    (:mod:`memdir.agent_transcripts`).
    """
    lines = list(lines)
    first = next((line for line in lines if line.strip()), "")
    if first:
        from memdir.agent_transcripts import parse_codex_rollout, parse_gemini_chat, transcript_agent

        agent = transcript_agent(first)
        if agent == "codex":
            return parse_codex_rollout(lines, source=source)
        if agent == "gemini":
            return parse_gemini_chat(lines, source=source)
    entries = [(entry, number) for number, entry in json_lines(lines, source, "Claude Code")]
    by_uuid: dict[str, dict[str, object]] = {}
    leaf: str | None = None
    for entry, _ in entries:
        uuid = entry.get("uuid")
        if not isinstance(uuid, str) or entry.get("isSidechain"):
            continue
        if entry.get("type") not in ("user", "assistant", "system", "attachment", "progress"):
            continue
        by_uuid[uuid] = entry
        if entry.get("type") in ("user", "assistant"):
            leaf = uuid
    chain: list[dict[str, object]] = []
    seen: set[str] = set()
    current = leaf
    while current is not None and current in by_uuid and current not in seen:
        seen.add(current)
        entry = by_uuid[current]
        chain.append(entry)
        parent = entry.get("parentUuid") or entry.get("logicalParentUuid")
        current = parent if isinstance(parent, str) else None
    chain.reverse()
    messages = []
    for index, entry in enumerate(chain):
        message = _message_from_entry(entry, f"entry-{index}")
        if message is not None:
            messages.append(message)
    return messages


def parse_message_json(data: object, *, source: str = "<messages>") -> list[ConversationMessage]:
    """memdir's message JSON (an object with ``messages`` or a bare list) as conversation messages."""
    raw = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise ConfigError(
            f'{source}: expected {{"messages": [...]}} or a JSON list of messages', rule="messages", path=source
        )
    messages: list[ConversationMessage] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or item.get("role") not in ("user", "assistant", "system"):
            raise ConfigError(
                f'{source}: message {index} needs "role" (user, assistant or system) and "content"',
                rule="messages",
                path=source,
            )
        role = item["role"]
        messages.append(
            ConversationMessage(
                uuid=str(item.get("uuid") or item.get("id") or f"m{index}"),
                role=role,
                blocks=_parse_blocks(item.get("content")),
                message_id=_str_or_none(item.get("id")),
                usage=_usage(item.get("usage")),
                is_meta=bool(item.get("is_meta", False)),
                is_compact_summary=bool(item.get("is_compact_summary", False)),
                is_compact_boundary=bool(item.get("is_compact_boundary", False)),
            )
        )
    return messages


def load_conversation(path: str) -> list[ConversationMessage]:
    """Read a Claude Code ``.jsonl`` transcript or a memdir message ``.json`` file."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError as exc:
        raise ConfigError(f"no such transcript: {path}", rule="transcript", path=path) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text ({exc.reason})", rule="transcript", path=path) from exc
    except OSError as exc:
        raise ConfigError(
            f"cannot read transcript {path}: {exc.strerror or exc}; pass the path of a .jsonl transcript file",
            rule="transcript",
            path=path,
        ) from exc
    stripped = text.lstrip()
    if path.endswith(".jsonl") or (stripped.startswith("{") and "\n{" in stripped and not path.endswith(".json")):
        return parse_transcript_lines(text.splitlines(), source=path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", rule="messages", path=path
        ) from exc
    return parse_message_json(data, source=os.path.basename(path))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" … [{len(text) - limit} more characters]"


def render_conversation(messages: Sequence[ConversationMessage], *, max_block_chars: int = 4000) -> str:
    """The conversation as plain text for a background agent's prompt.

    Tool calls and results are shown compactly (long ones clipped), meta messages are left out:
    the agent needs what was said and done, not every byte of every tool output.
    """
    parts: list[str] = []
    for message in messages:
        if message.is_meta or message.role == "system":
            continue
        lines: list[str] = []
        for block in message.blocks:
            if block.type == "text" and block.text.strip():
                lines.append(_clip(block.text.strip(), max_block_chars))
            elif block.type == "tool_use":
                arguments = json.dumps(dict(block.input), ensure_ascii=False)
                lines.append(f"[tool call {block.name}: {_clip(arguments, max_block_chars)}]")
            elif block.type == "tool_result":
                status = "error" if block.is_error else "result"
                lines.append(f"[tool {status}: {_clip(block.text.strip(), max_block_chars)}]")
        if lines:
            parts.append(f"<{message.role}>\n" + "\n".join(lines) + f"\n</{message.role}>")
    return "\n\n".join(parts)
