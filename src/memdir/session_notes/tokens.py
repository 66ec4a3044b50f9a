"""Token counts of a conversation, the way Claude Code estimates them for session memory.

The update rule and the compaction keep-window are both defined on these numbers, so they are
computed exactly as Claude Code does: the last API ``usage`` report where there is one, a rough
``length / 4`` (UTF-16 units, ``Math.round``) per block for what came after it. The rough count
is deliberately cheap: it runs after every model response and must not need a tokenizer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from memdir.conversation import Block, ConversationMessage
from memdir.model.text import js_round, utf16_len

__all__ = [
    "FIXED_MEDIA_TOKENS",
    "count_tool_calls_since",
    "estimate_message_tokens",
    "has_text_blocks",
    "last_turn_has_tool_calls",
    "live_context",
    "rough_block_tokens",
    "rough_message_tokens",
    "rough_token_count",
    "token_count_with_estimation",
    "usage_tokens",
]

# An image or document block carries no text to measure; its real cost depends on pixels and
# pages that a transcript does not record. Claude Code charges the upper bound it allows for an
# image (2000 tokens) so that estimates err on the side of compacting early, never too late.
FIXED_MEDIA_TOKENS = 2000
_MEDIA = frozenset({"image", "document"})


def rough_token_count(text: str) -> int:
    """``Math.round(text.length / 4)``: halves round up, lengths count UTF-16 units."""
    return js_round(utf16_len(text) / 4)


def _json(value: object) -> str:
    """``JSON.stringify`` spacing, so tool inputs measure the same length as in Claude Code."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def rough_block_tokens(block: Block) -> int:
    if block.type in ("text", "tool_result", "thinking", "redacted_thinking"):
        return rough_token_count(block.text)
    if block.type == "tool_use":
        return rough_token_count((block.name or "") + _json(dict(block.input)))
    if block.type in _MEDIA:
        return FIXED_MEDIA_TOKENS
    return rough_token_count(_json({"type": block.type}))


def rough_message_tokens(messages: Sequence[ConversationMessage]) -> int:
    """The rough estimate of user and assistant messages (system entries carry no API content)."""
    return sum(rough_block_tokens(block) for m in messages if m.role != "system" for block in m.blocks)


def usage_tokens(message: ConversationMessage) -> int | None:
    """Input, both cache counts and output of an assistant message's API usage, or None."""
    if message.role != "assistant" or not message.usage:
        return None
    usage = message.usage
    return (
        usage.get("input_tokens", 0)
        + usage.get("cache_creation_input_tokens", 0)
        + usage.get("cache_read_input_tokens", 0)
        + usage.get("output_tokens", 0)
    )


def token_count_with_estimation(messages: Sequence[ConversationMessage]) -> int:
    """The context size: the last reported usage plus a rough estimate of everything after it.

    One API response can be stored as several records (one per content block) with tool results
    between them; all share the response's ``message_id``. Counting starts after the *first* of
    those records, so the interleaved tool results are estimated rather than lost.
    """
    index = len(messages) - 1
    while index >= 0:
        message = messages[index]
        reported = usage_tokens(message)
        if reported is not None:
            response_id = message.message_id
            if response_id:
                for earlier in range(index - 1, -1, -1):
                    prior = messages[earlier]
                    prior_id = prior.message_id if prior.role == "assistant" else None
                    if prior_id == response_id:
                        index = earlier
                    elif prior_id is not None:
                        break
            return reported + rough_message_tokens(messages[index + 1 :])
        index -= 1
    return rough_message_tokens(messages)


def estimate_message_tokens(messages: Sequence[ConversationMessage]) -> int:
    """The compaction estimate: rough block sizes padded by 4/3, rounded up.

    The padding covers what a ``length / 4`` guess misses (code and non-English text tokenise
    denser), so the kept window is more likely to be over its minimum than under it.
    """
    total = sum(rough_block_tokens(block) for m in messages if m.role != "system" for block in m.blocks)
    return math.ceil(total * 4 / 3)


def has_text_blocks(message: ConversationMessage) -> bool:
    if message.role == "system":
        return False
    return any(block.type == "text" for block in message.blocks)


def count_tool_calls_since(messages: Sequence[ConversationMessage], since_uuid: str | None) -> int:
    """``tool_use`` blocks in assistant messages after ``since_uuid`` (all of them when it is None).

    A cursor that is no longer in the conversation counts nothing, as in Claude Code: the tool
    condition then waits for the token condition and a turn without tools.
    """
    found = since_uuid is None
    count = 0
    for message in messages:
        if not found:
            found = message.uuid == since_uuid
            continue
        if message.role == "assistant":
            count += len(message.tool_uses())
    return count


def last_turn_has_tool_calls(messages: Sequence[ConversationMessage]) -> bool:
    for message in reversed(messages):
        if message.role == "assistant":
            return bool(message.tool_uses())
    return False


def live_context(messages: Sequence[ConversationMessage]) -> list[ConversationMessage]:
    """The messages from the last compact boundary on: what the agent's context holds right now.

    A transcript keeps everything ever said; after a compaction the agent only carries the
    boundary, the summary and what followed, and the counts and cursors apply to that.
    """
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].is_compact_boundary:
            return list(messages[index:])
    return list(messages)
