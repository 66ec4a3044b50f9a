"""Compaction from session notes: the notes replace old messages, recent ones stay verbatim.

Ordinary compaction asks a model to summarise the whole conversation at the moment the context
is full. With session notes that summary already exists, so compaction only has to choose how
many recent messages to keep next to it. That choice never separates a tool call from its
result, and never keeps half of one API response.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memdir.conversation import Block, ConversationMessage
from memdir.session_notes.notes import is_notes_empty, truncate_for_compact
from memdir.session_notes.thresholds import CompactThresholds
from memdir.session_notes.tokens import estimate_message_tokens, has_text_blocks, token_count_with_estimation
from memdir.templates import render_template

__all__ = [
    "CompactionFallback",
    "CompactionResult",
    "adjust_index_to_preserve_api_invariants",
    "build_compact_summary",
    "calculate_messages_to_keep_index",
    "plan_compaction",
]


@dataclass(frozen=True)
class CompactionResult:
    summary: str  # the text of the summary message
    summary_message: ConversationMessage  # role user, is_compact_summary
    kept: tuple[ConversationMessage, ...]  # the messages kept verbatim, oldest first
    start_index: int  # index of the first kept message in the messages given
    was_truncated: bool
    notes_path: str
    pre_compact_tokens: int
    post_compact_tokens: int  # the estimate of summary + kept messages


@dataclass(frozen=True)
class CompactionFallback:
    """Why notes-based compaction is not possible now; the caller compacts the ordinary way."""

    reason: str  # "disabled" | "no-notes" | "empty-notes" | "summarized-message-missing" | "over-threshold"
    detail: str


def _tool_result_ids(message: ConversationMessage) -> list[str]:
    if message.role != "user":
        return []
    return [b.tool_use_id for b in message.blocks if b.type == "tool_result" and b.tool_use_id]


def _tool_use_ids(message: ConversationMessage) -> set[str]:
    if message.role != "assistant":
        return set()
    return {b.id for b in message.blocks if b.type == "tool_use" and b.id}


def adjust_index_to_preserve_api_invariants(messages: Sequence[ConversationMessage], start: int) -> int:
    """Move ``start`` back so no kept tool result loses its call and no response is split.

    Claude Code does one pass of each rule; pulling in earlier records can bring in more tool
    results whose calls lie further back still, so here the two rules repeat until nothing
    changes. For the usual shapes the result is the same; for the rare deep chains it is the
    one that keeps the API from rejecting the request.
    """
    if start <= 0 or start >= len(messages):
        return start
    index = start
    while True:
        before = index
        kept = messages[index:]
        have = set().union(*(_tool_use_ids(m) for m in kept))
        needed = {i for m in kept for i in _tool_result_ids(m)} - have
        for earlier in range(index - 1, -1, -1):
            if not needed:
                break
            found = _tool_use_ids(messages[earlier]) & needed
            if found:
                index = earlier
                needed -= found
        response_ids = {m.message_id for m in messages[index:] if m.role == "assistant" and m.message_id}
        for earlier in range(index - 1, -1, -1):
            message = messages[earlier]
            if message.role == "assistant" and message.message_id in response_ids:
                index = earlier
        if index == before:
            return index


def calculate_messages_to_keep_index(
    messages: Sequence[ConversationMessage], last_summarized_index: int, thresholds: CompactThresholds
) -> int:
    """The index of the first message to keep after the notes.

    Everything after the last summarised message is kept. If that is too little (under the
    token minimum or the text-message minimum), older messages are added back, never beyond the
    previous compact boundary, until both minimums are met or the maximum is reached.
    """
    if not messages:
        return 0
    start = last_summarized_index + 1 if last_summarized_index >= 0 else len(messages)
    tokens = 0
    text_messages = 0
    for message in messages[start:]:
        tokens += estimate_message_tokens([message])
        text_messages += has_text_blocks(message)

    def enough() -> bool:
        return tokens >= thresholds.max_tokens or (
            tokens >= thresholds.min_tokens and text_messages >= thresholds.min_text_block_messages
        )

    if not enough():
        boundary = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].is_compact_boundary), -1)
        for index in range(start - 1, boundary, -1):
            tokens += estimate_message_tokens([messages[index]])
            text_messages += has_text_blocks(messages[index])
            start = index
            if enough():
                break
    return adjust_index_to_preserve_api_invariants(messages, start)


def build_compact_summary(notes: str, *, notes_path: str, transcript_path: str | None) -> tuple[str, bool]:
    """The summary message text from the notes, and whether any section had to be cut."""
    truncated = truncate_for_compact(notes)
    transcript_note = (
        render_template("session_compact_transcript", transcriptPath=transcript_path) if transcript_path else ""
    )
    text = render_template("session_compact_summary", notes=truncated.text, transcriptNote=transcript_note)
    if truncated.was_truncated:
        text += "\n\n" + render_template("session_compact_truncated", notesPath=notes_path)
    return text, truncated.was_truncated


def plan_compaction(
    messages: Sequence[ConversationMessage],
    *,
    notes: str | None,
    template: str,
    notes_path: str,
    last_summarized_message_id: str | None,
    thresholds: CompactThresholds,
    transcript_path: str | None = None,
    auto_compact_threshold: int | None = None,
) -> CompactionResult | CompactionFallback:
    """Compact ``messages`` (the agent's current context) around the notes, or say why not."""
    if notes is None:
        return CompactionFallback("no-notes", f"no session notes at {notes_path} yet")
    if is_notes_empty(notes, template):
        return CompactionFallback("empty-notes", f"the session notes at {notes_path} are still the bare template")
    if last_summarized_message_id:
        summarized = next((i for i, m in enumerate(messages) if m.uuid == last_summarized_message_id), -1)
        if summarized < 0:
            return CompactionFallback(
                "summarized-message-missing",
                f"the last message the notes cover ({last_summarized_message_id}) is not in the conversation",
            )
    else:
        summarized = len(messages) - 1
    start = calculate_messages_to_keep_index(messages, summarized, thresholds)
    kept = tuple(m for m in messages[start:] if not m.is_compact_boundary)
    text, was_truncated = build_compact_summary(notes, notes_path=notes_path, transcript_path=transcript_path)
    summary_message = ConversationMessage(
        uuid=f"compact-summary-{messages[-1].uuid if messages else 'empty'}",
        role="user",
        blocks=(Block(type="text", text=text),),
        is_compact_summary=True,
    )
    post = estimate_message_tokens([summary_message, *kept])
    if auto_compact_threshold is not None and post >= auto_compact_threshold:
        return CompactionFallback(
            "over-threshold",
            f"the compacted context would still be ~{post} tokens, at or over the threshold {auto_compact_threshold}",
        )
    return CompactionResult(
        summary=text,
        summary_message=summary_message,
        kept=kept,
        start_index=start,
        was_truncated=was_truncated,
        notes_path=notes_path,
        pre_compact_tokens=token_count_with_estimation(messages),
        post_compact_tokens=post,
    )
