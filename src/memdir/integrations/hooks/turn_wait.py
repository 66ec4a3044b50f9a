"""Waiting, bounded, until a Claude Code transcript holds the turn a hook was called for.

Claude Code runs the Stop hook when the model's answer has streamed, but some releases write the
transcript through a queue that is flushed a moment later (2.1.88 every 100 ms): a process the hook
starts can find the file without the turn's last reply, or, on a session's first turn, find no
file at all. So the background commands wait for what the hook input names before they read:

* a Stop hook passes the digest of ``last_assistant_message`` (:func:`reply_digest`) and, from
  2.1.330 on, the ``prompt_id`` that Claude Code also writes on the turn's user entry
  (``promptId``): the turn is there once a reply with that text follows the prompt (or, without a
  prompt id, follows the extraction cursor, i.e. was not read yet);
* without a digest (a reply with no text), any new reply counts once the file has been still for
  a second;
* ``SessionEnd`` and ``PreCompact`` name no reply: the file only has to exist and be still.

The wait ends at ``timeout`` whatever happens, and the caller reads what is there: waiting can
delay a run, never lose one. Only complete lines are returned, since a line being appended while
we read is not JSON yet.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

__all__ = ["ANY_REPLY", "TurnWait", "read_complete_lines", "reply_digest", "turn_is_written", "wait_for_turn"]

ANY_REPLY = "new"  # the ``--reply`` value that asks for any reply not read yet
STILL_WITH_REPLY = 1.0  # seconds without a write before "a new reply" counts without a digest
STILL_WITHOUT_REPLY = 0.5  # seconds without a write before a file counts as written (SessionEnd, PreCompact)
POLL_SECONDS = 0.05


def reply_digest(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of ``text`` with its whitespace runs made single spaces.

    Hooks get the reply's text (joined and trimmed by Claude Code); the transcript holds its
    blocks. Comparing digests of the whitespace-normalised text keeps the command line short and
    makes the two spellings meet.
    """
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


class TurnWait(NamedTuple):
    """What the wait saw: the complete lines read last, and whether (and why) it stopped waiting."""

    lines: list[str]
    found: bool
    reason: str  # for the log: "the reply is written", "timed out: ...", ...
    waited: float  # seconds
    exists: bool


def read_complete_lines(path: str) -> list[str] | None:
    """The file's complete lines (a last line without its newline is being written), or None when absent."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except FileNotFoundError:
        return None
    end = text.rfind("\n")
    return text[: end + 1].splitlines() if end >= 0 else []


_ENTRY_MARKERS = ('"type":"user"', '"type":"assistant"', '"type": "user"', '"type": "assistant"')


def _entries(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The main thread's user and assistant entries, in file order."""
    entries = []
    for line in lines:
        if not any(marker in line for marker in _ENTRY_MARKERS):
            continue  # attachments, request records, queue operations: not worth parsing
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") in ("user", "assistant") and not entry.get("isSidechain"):
            entries.append(entry)
    return entries


def _text(entry: dict[str, Any]) -> str:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(block.get("text") or "") for block in content if isinstance(block, dict) and block.get("type") == "text"
    )


def _message_id(entry: dict[str, Any]) -> str | None:
    message = entry.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) else None


def _holds_reply(entries: list[dict[str, Any]], start: int, digest: str | None) -> bool:
    """Whether an assistant entry at ``start`` or later is the reply (any reply when ``digest`` is None).

    Claude Code may write one response as several entries (one per content block) sharing the
    API message id, so both each entry's text and the text of all entries of one id are tried.
    """
    joined: dict[str, list[str]] = {}
    for entry in entries[start:]:
        if entry.get("type") != "assistant":
            continue
        if digest is None:
            return True
        text = _text(entry)
        if text.strip() and reply_digest(text) == digest:
            return True
        message_id = _message_id(entry)
        if message_id is not None:
            parts = joined.setdefault(message_id, [])
            if text:
                parts.append(text)
            if len(parts) > 1 and reply_digest("\n".join(parts)) == digest:
                return True
    return False


def _start(entries: list[dict[str, Any]], cursor: str | None, prompt_id: str | None) -> tuple[int, bool]:
    """Where the turn's reply must be looked for, and whether the prompt id was found."""
    if prompt_id is not None:
        for index in range(len(entries) - 1, -1, -1):
            if entries[index].get("type") == "user" and entries[index].get("promptId") == prompt_id:
                return index + 1, True
    if cursor is not None:
        for index in range(len(entries) - 1, -1, -1):
            if entries[index].get("uuid") == cursor:
                return index + 1, False
    return 0, False


def turn_is_written(
    lines: list[str], *, cursor: str | None, reply: str | None, prompt_id: str | None
) -> tuple[bool, str]:
    """Whether ``lines`` hold the turn (before any stillness rule), and a word on how it was decided."""
    entries = _entries(lines)
    start, by_prompt = _start(entries, cursor, prompt_id)
    if prompt_id is not None and not by_prompt:
        return False, "the turn's prompt is not written yet"
    digest = None if reply in (None, ANY_REPLY) else reply
    if _holds_reply(entries, start, digest):
        after = "its prompt" if by_prompt else ("the last extraction" if cursor is not None and start else "the start")
        return True, f"the turn's reply is written (after {after})"
    return False, "the turn's reply is not written yet"


def _signature(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_size, stat.st_mtime_ns


def wait_for_turn(
    path: str,
    *,
    timeout: float,
    cursor: str | None = None,
    reply: str | None = None,
    prompt_id: str | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> TurnWait:
    """Poll ``path`` until it holds the turn, or ``timeout`` seconds pass; then return what it holds.

    ``reply`` is a :func:`reply_digest`, :data:`ANY_REPLY`, or None when no reply is expected
    (the file only has to exist and be still). The file is read again only when its size or
    modification time changed.
    """
    still = {None: STILL_WITHOUT_REPLY, ANY_REPLY: STILL_WITH_REPLY}.get(reply, 0.0)
    started = clock()
    deadline = started + max(0.0, timeout)
    seen: tuple[int, int] | None = None
    changed_at = started
    lines: list[str] = []
    exists = holds = False
    reason = "the transcript does not exist"
    while True:
        now = clock()
        signature = _signature(path)
        if signature != seen:
            seen, changed_at = signature, now
            read = read_complete_lines(path) if signature is not None else None
            exists, lines = read is not None, read or []
            if not exists:
                holds, reason = False, "the transcript does not exist"
            elif reply is None:
                holds, reason = True, "the transcript is written"
            else:
                holds, reason = turn_is_written(lines, cursor=cursor, reply=reply, prompt_id=prompt_id)
        if holds and now - changed_at >= still:
            if still:
                reason += f" and has not changed for {still:g} s"
            return TurnWait(lines, True, reason, now - started, exists)
        if now >= deadline:
            return TurnWait(lines, False, f"gave up after {timeout:g} s: {reason}", now - started, exists)
        sleep(min(POLL_SECONDS, max(0.0, deadline - now)))
