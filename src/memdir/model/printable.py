"""Text from outside made safe to print on a terminal, one line per value.

Keys, names and messages that arrive from a team server, a teammate's push or a memory file can
hold control characters: ESC starts a terminal escape (an OSC 52 write to the clipboard, a title
change, colours that hide what follows), CR rewrites a line, BEL rings. Every such value memdir
prints goes through :func:`printable`, which shows each unprintable code point as an escape
(``\\x1b``, ``\\u200b``) and leaves every other character, of any script, as it is.
"""

from __future__ import annotations

__all__ = ["printable", "unprintable_characters"]


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, *, keep: str = "") -> str:
    """``text`` with each character that ``str.isprintable`` refuses (controls, format characters
    such as zero-width spaces and bidirectional overrides, line and paragraph separators,
    unassigned code points) written as an escape, except those in ``keep`` (say ``"\n\t"`` for
    a message of several lines); a backslash is kept as it is."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char in keep else _escape(char) for char in text)


def unprintable_characters(text: str) -> list[str]:
    """The distinct unprintable characters of ``text``, as escapes, in order of appearance (for messages)."""
    seen: dict[str, None] = {}
    for char in text:
        if not char.isprintable():
            seen.setdefault(_escape(char))
    return list(seen)
