"""One line per step in the background agents' logs, so that a quiet log means nothing was started.

A hook that starts ``memdir extract`` or ``memdir session update`` appends a line saying so to
``<configHome>/memdir/logs/extract.log`` (or ``session.log``); the command, given ``--log``, appends
what it read (how many messages, the last one's uuid and the last reply's API message id), what
it wrote, or why it wrote nothing. Each line is one ``write`` to a file opened for appending, so
the processes of one session never interleave inside a line. A log that cannot be written is
skipped: the log reports the work, it must never stop it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memdir.conversation import ConversationMessage
    from memdir.extract.result import ExtractionResult

__all__ = ["describe_extraction", "describe_read", "log_line"]


def _stamp(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + f".{int(when * 1000) % 1000:03d}Z"


def log_line(path: str, who: str, text: str, *, clock: Callable[[], float] = time.time) -> None:
    """Append ``<UTC time> <who> [pid N]: <text>`` to ``path`` (its folder is created when missing)."""
    line = f"{_stamp(clock())} {who} [pid {os.getpid()}]: {' '.join(text.split())}\n"
    try:
        from memdir.store.files import ensure_dir

        ensure_dir(os.path.dirname(path) or ".")
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, line.encode("utf-8"))
        finally:
            os.close(descriptor)
    except OSError:
        pass


def describe_read(messages: Sequence[ConversationMessage]) -> str:
    """``read 4 messages up to <uuid> (last reply msg_...)``: enough to find the turn in the transcript."""
    if not messages:
        return "read no messages"
    reply = next((m for m in reversed(messages) if m.role == "assistant"), None)
    text = f"read {len(messages)} messages up to {messages[-1].uuid}"
    if reply is not None:
        text += f" (last reply {reply.message_id or reply.uuid})"
    return text


def describe_extraction(result: ExtractionResult) -> str:
    """What a run changed, or why it changed nothing, in a few words."""
    if result.error is not None:
        return f"failed, cursor kept: {result.error}"
    if result.skipped is not None:
        return f"wrote nothing: {result.skipped}"
    done = []
    if result.written:
        done.append("wrote " + ", ".join(os.path.basename(path) for path in result.written))
    if result.deleted:
        done.append("deleted " + ", ".join(os.path.basename(path) for path in result.deleted))
    if not done:
        done.append(f"wrote nothing: the model found nothing worth saving in {result.message_count} new messages")
    return "; ".join(done)
