"""Small builders for conversations used by the session-memory tests."""

from __future__ import annotations

import itertools
import json

from memdir.conversation import Block, ConversationMessage

_ids = itertools.count(1)


def user(text: str = "hello", *, uuid: str | None = None) -> ConversationMessage:
    return ConversationMessage(uuid=uuid or f"u{next(_ids)}", role="user", blocks=(Block(type="text", text=text),))


def assistant(
    text: str = "ok",
    *,
    uuid: str | None = None,
    tools: int = 0,
    tokens: int | None = None,
    message_id: str | None = None,
    tool_ids: list[str] | None = None,
) -> ConversationMessage:
    blocks = [Block(type="text", text=text)] if text else []
    for n, tool_id in enumerate(tool_ids or [f"t{next(_ids)}" for _ in range(tools)]):
        blocks.append(Block(type="tool_use", id=tool_id, name="Bash", input={"command": f"ls {n}"}))
    return ConversationMessage(
        uuid=uuid or f"a{next(_ids)}",
        role="assistant",
        blocks=tuple(blocks),
        message_id=message_id,
        usage=None if tokens is None else {"input_tokens": tokens},
    )


def result(tool_id: str, text: str = "done", *, uuid: str | None = None) -> ConversationMessage:
    return ConversationMessage(
        uuid=uuid or f"r{next(_ids)}",
        role="user",
        blocks=(Block(type="tool_result", tool_use_id=tool_id, text=text),),
    )


def boundary(uuid: str = "boundary") -> ConversationMessage:
    return ConversationMessage(
        uuid=uuid, role="system", blocks=(Block(type="text", text="Conversation compacted"),), is_compact_boundary=True
    )


def write_transcript(path, messages: list[ConversationMessage]) -> None:
    """Write ``messages`` as a Claude Code transcript (.jsonl, threaded by parentUuid)."""
    lines = []
    parent = None
    for m in messages:
        if m.role == "system":
            entry = {
                "type": "system",
                "subtype": "compact_boundary" if m.is_compact_boundary else "info",
                "content": m.text,
                "uuid": m.uuid,
                "parentUuid": None,
                "logicalParentUuid": parent,
            }
        else:
            content = []
            for b in m.blocks:
                if b.type == "text":
                    content.append({"type": "text", "text": b.text})
                elif b.type == "tool_use":
                    content.append({"type": "tool_use", "id": b.id, "name": b.name, "input": dict(b.input)})
                elif b.type == "tool_result":
                    content.append({"type": "tool_result", "tool_use_id": b.tool_use_id, "content": b.text})
            message: dict[str, object] = {"role": m.role, "content": content}
            if m.message_id:
                message["id"] = m.message_id
            if m.usage:
                message["usage"] = dict(m.usage)
            entry = {
                "type": m.role,
                "uuid": m.uuid,
                "parentUuid": parent,
                "message": message,
                "sessionId": "s",
                "isSidechain": False,
            }
        lines.append(json.dumps(entry))
        parent = m.uuid
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
