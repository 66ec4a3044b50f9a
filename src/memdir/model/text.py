"""JavaScript string semantics that the on-disk formats depend on.

Claude Code measures lengths in UTF-16 code units, trims with JS ``trim`` and rounds with
``Math.round``. Files it writes and limits it applies are only reproduced exactly when memdir
counts the same way, so every such computation goes through these helpers.
"""

from __future__ import annotations

import math

__all__ = ["counted", "js_round", "js_trim", "utf16_len", "utf16_prefix"]

# JS String.prototype.trim strips WhiteSpace and LineTerminator code points.
_JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, as JS ``String.length`` reports it. Text with no
    character beyond the Basic Multilingual Plane (nearly all) is measured without a Python loop:
    a save measures the whole index this way."""
    if text.isascii() or max(text) <= "\uffff":
        return len(text)
    return len(text) + sum(1 for ch in text if ch > "\uffff")


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of ``text`` that is at most ``units`` UTF-16 code units long.

    JS ``slice`` can cut a surrogate pair in half; Python strings cannot hold half a pair, so a
    character that would be split is dropped whole.
    """
    if units >= len(text) * 2 or utf16_len(text) <= units:
        return text
    count = 0
    for index, ch in enumerate(text):
        count += 2 if ord(ch) > 0xFFFF else 1
        if count > units:
            return text[:index]
    return text


def js_trim(text: str) -> str:
    """``String.prototype.trim``: Python's ``strip()`` knows a slightly different whitespace set."""
    return text.strip(_JS_WHITESPACE)


def js_round(value: float) -> int:
    """``Math.round``: halves round towards +infinity (Python's ``round`` rounds half to even)."""
    return math.floor(value + 0.5)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 file``, ``2 files``, ``1 memory``, ``3 memories``: a count with its noun in the right
    number (``plural`` when adding an ``s`` is not it)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
