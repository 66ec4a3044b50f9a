"""The context a hook added, taken back out of what a coding agent shows as the person's words.

Gemini CLI puts what a hook returns into the user's own message, wrapped in
``<hook_context>…</hook_context>``: the session-start context before the prompt (so it is in the
next ``BeforeAgent`` hook's ``prompt`` as well) and each turn's recall as a part of its own. It
writes that message to its transcript as it sent it. Recall must search, and extraction must read,
what the person wrote, not what memdir added.
"""

from __future__ import annotations

__all__ = ["strip_hook_context"]

_OPEN = "<hook_context>"
_CLOSE = "</hook_context>"


def strip_hook_context(text: str) -> str:
    """``text`` without its ``<hook_context>…</hook_context>`` blocks, trimmed when there were any.

    An opening tag without its end is kept as it is: that is the person's own text.
    """
    if _OPEN not in text:
        return text
    parts: list[str] = []
    rest = text
    while True:
        start = rest.find(_OPEN)
        end = rest.find(_CLOSE, start + len(_OPEN)) if start >= 0 else -1
        if start < 0 or end < 0:
            parts.append(rest)
            break
        parts.append(rest[:start])
        rest = rest[end + len(_CLOSE) :]
    return "".join(parts).strip()
