"""Memory text is data: the tags a prompt is built from are neutralised before a model reads it.

memdir hands memory text to a model inside blocks it marks with tags (``<system-reminder>``,
``<team-memory-content>``), and Claude Code reads the same kind of tags as coming from the system.
A memory that holds ``</system-reminder>`` could end its block early and speak as the system
from there on; a teammate's memory could do it in someone else's session. So every place that
shows memory text to a model passes it through :func:`neutralise` first.

The function replaces the angle brackets of anything that reads as such a tag with the single
guillemets ``‹`` and ``›``: ``‹/system-reminder›`` still reads as what the memory said, but is no
longer markup. A tag counts whatever its spelling: any case, spaces or line breaks around or
inside the name (however many), zero-width and other invisible characters (the Hangul fillers and
the blank Braille pattern among them), a backslash before the slash, combining marks, HTML entities
(``&lt;``, ``&#60;``, ``&#x3c;``, with or without the semicolon), full-width and small-form
brackets (``＜`` ``﹤``) and letters, and a name cut short where the text ends or another field
begins (``</sys`` … ``tem-reminder>``). Ordinary markup in a memory (``<div>``,
``List<String>``, ``a < b``) is left alone. Pure: no I/O, and cheap on text without brackets.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from memdir.model.patterns import LazyPattern
from memdir.model.printable import printable

__all__ = ["CLOSE_MARK", "OPEN_MARK", "MarkupFinding", "describe_markup", "find_markup", "neutralise"]

OPEN_MARK = "\u2039"  # ‹
CLOSE_MARK = "\u203a"  # ›

# Folded (NFKC, casefold, letters and digits only) tag names, or parts of them, that make a tag
# one to neutralise: the blocks memory text sits in, and the other markers an agent's context uses.
_KEYWORDS = (
    "system",
    "reminder",
    "teammemory",
    "memorycontent",
    "claudemd",
    "functioncalls",
    "functionresults",
    "antml",
    "invoke",
    "parameter",
    "userpromptsubmithook",
    "commandname",
    "commandmessage",
    "commandargs",
    "localcommand",
    "toolresult",
    "tooluse",
    "human",
    "assistant",
    "hookcontext",  # Gemini CLI wraps what a hook adds in <hook_context>
)
_KEYWORD = LazyPattern("|".join(_KEYWORDS))
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_MIN_PREFIX = 3  # an unfinished name this long that starts a keyword counts ("</sys" at a field's end)
_NAME_LIMIT = 80  # name characters read after a bracket: a tag name and its attributes, no further

# Anything that could become a bracket: the characters themselves, their full-width and small forms,
# and an entity. Text without any of these is returned as it is, without being walked.
_SEEDS = LazyPattern(r"[<>\uff1c\uff1e\ufe64\ufe65]|&(?:lt|gt|amp|#)", re.IGNORECASE)
_CANDIDATES = LazyPattern(r"[<>\uff1c\uff1e\ufe64\ufe65&]")
_ENTITY = LazyPattern(r"&(?:#(?:x([0-9a-f]{1,6})|([0-9]{1,7}))|([a-z]{2,8}));?", re.IGNORECASE)
_NAMED = {
    "lt": "<",
    "gt": ">",
    "amp": "&",
    "sol": "/",
    "hyphen": "-",
    "dash": "-",
    "lowbar": "_",
    "colon": ":",
    "period": ".",
    "quot": '"',
    "apos": "'",
    "equals": "=",
    "nbsp": " ",
    "shy": "\u00ad",
    "zwj": "\u200d",
    "zwnj": "\u200c",
}
_NAME_PUNCTUATION = frozenset("-_:.\"'=/\\")  # a backslash too: ``<\/system-reminder>`` is JSON's spelling
# Letters that show nothing: the Hangul fillers and the blank Braille pattern, which a reader skips
# as it skips a space, so that ``</s\u3164ystem-reminder>`` is still the tag it looks like.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


class MarkupFinding(NamedTuple):
    """One tag-like piece of a text that :func:`neutralise` changes: where it is and what it says."""

    start: int
    end: int
    text: str


class _Unit(NamedTuple):
    char: str  # the character the unit stands for, an entity decoded
    start: int
    end: int


def _unit_at(text: str, index: int, depth: int = 0) -> _Unit:
    """The character at ``index``, reading an HTML entity there as the character it encodes."""
    char = text[index]
    if char == "&":
        match = _ENTITY.match(text, index)
        if match is not None:
            hex_digits, digits, name = match.groups()
            decoded: str | None
            if name is not None:
                decoded = _NAMED.get(name.lower())
                if decoded is not None and not match.group(0).endswith(";") and name.lower() not in ("lt", "gt", "amp"):
                    decoded = None  # only the legacy entities work without their semicolon
            else:
                code = int(hex_digits, 16) if hex_digits is not None else int(digits)
                decoded = chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else None
            if decoded == "&" and depth < 3:
                # ``&amp;lt;``: an entity encoded once more, which a second decoding turns into a bracket
                inner = _unit_at("&" + text[match.end() : match.end() + 16], 0, depth + 1)
                if inner.char != "&":
                    return _Unit(inner.char, index, match.end() + inner.end - 1)
            if decoded is not None:
                return _Unit(decoded, index, match.end())
    return _Unit(char, index, index + 1)


def _fold(char: str) -> str:
    return unicodedata.normalize("NFKC", char).casefold() if not char.isascii() else char.lower()


def _ignorable(char: str) -> bool:
    """Invisible to a reader: white space, format characters (zero-width and the like), marks."""
    return char.isspace() or (
        not char.isascii() and (char in _BLANK_LETTERS or unicodedata.category(char) in ("Cf", "Mn", "Me", "Cc"))
    )


_ASCII_KINDS = {chr(code): "other" for code in range(128)}
_ASCII_KINDS.update({c: "name" for c in _ASCII_KINDS if c.isalnum() or c in _NAME_PUNCTUATION})
_ASCII_KINDS.update({c: "skip" for c in _ASCII_KINDS if c.isspace() or ord(c) < 32 or ord(c) == 127})
_ASCII_KINDS.update({"<": "open", ">": "close"})


def _kind(char: str) -> str:
    """``open``, ``close``, ``name``, ``skip`` or ``other`` for one decoded character."""
    ascii_kind = _ASCII_KINDS.get(char)
    if ascii_kind is not None:
        return ascii_kind
    if _ignorable(char):
        return "skip"
    folded = _fold(char)
    if folded == "<":
        return "open"
    if folded == ">":
        return "close"
    if folded.isalnum() or (folded and all(c in _NAME_PUNCTUATION for c in folded)):
        return "name"
    return "other"


def _key(parts: list[str]) -> str:
    """Letters and digits only, folded: what a name says whatever its spelling."""
    joined = "".join(parts)
    if joined.isascii():
        return _NOT_ALNUM.sub("", joined.lower())
    return "".join(c for c in unicodedata.normalize("NFKC", joined).casefold() if c.isalnum())


def _sensitive(key: str, *, unfinished: bool) -> bool:
    if _KEYWORD.search(key) is not None:
        return True
    return unfinished and len(key) >= _MIN_PREFIX and any(word.startswith(key) for word in _KEYWORDS)


# A stretch of plain ASCII name characters, and one of white space, each read in one step before
# the slow path. White space does not count against the name's limit: ``<`` and a hundred spaces
# before ``/system-reminder>`` is still that tag.
_ASCII_NAME_RUN = re.compile(r"[A-Za-z0-9\-_:.\"'=/\\]+")
_ASCII_SPACE_RUN = re.compile(r"\s+")


def _read_forward(text: str, index: int) -> tuple[str, bool, _Unit | None]:
    """After an opening bracket: the name's key, whether it was cut short, and its closing bracket.

    Reads at most ``_NAME_LIMIT`` name characters; invisible ones (spaces, fillers) are skipped
    without limit, which stays linear: a read stops at the next bracket, where the next one starts.
    """
    parts: list[str] = []
    position = index
    room = _NAME_LIMIT
    while position < len(text) and room > 0:
        space = _ASCII_SPACE_RUN.match(text, position)
        if space is not None:
            position = space.end()
            continue
        run = _ASCII_NAME_RUN.match(text, position, position + room)
        if run is not None:
            parts.append(run.group())
            room -= run.end() - position
            position = run.end()
            continue
        unit = _unit_at(text, position)
        kind = _kind(unit.char)
        if kind == "close":
            return _key(parts), False, unit
        if kind == "open" or kind == "other":
            break
        if kind == "name":
            parts.append(unit.char)
            room -= 1
        position = unit.end
    # Cut short: by the end of the text (or of a field), or by something no tag name holds.
    return _key(parts), True, None


def _read_backward(text: str, index: int) -> str:
    """Before a closing bracket: the key of the name it would close (entities read as plain text),
    from at most ``_NAME_LIMIT`` name characters, invisible ones skipped without limit."""
    parts: list[str] = []
    position = index - 1
    room = _NAME_LIMIT
    while position >= 0 and room > 0:
        kind = _kind(text[position])
        if kind == "name":
            parts.append(text[position])
            room -= 1
        elif kind != "skip":
            break
        position -= 1
    return _key(parts[::-1])


def _replacements(text: str) -> list[tuple[int, int, str]]:
    """The (start, end, replacement) spans that turn the text's tags into plain text, in order."""
    if _SEEDS.search(text) is None:
        return []
    done: dict[int, tuple[int, str]] = {}
    for candidate in _CANDIDATES.finditer(text):
        unit = _unit_at(text, candidate.start())
        kind = _kind(unit.char)
        if kind == "open":
            key, unfinished, closer = _read_forward(text, unit.end)
            if _sensitive(key, unfinished=unfinished):
                done[unit.start] = (unit.end, OPEN_MARK)
                if closer is not None:
                    done[closer.start] = (closer.end, CLOSE_MARK)
        elif (
            kind == "close"
            and unit.start not in done
            and _sensitive(_read_backward(text, unit.start), unfinished=False)
        ):
            done[unit.start] = (unit.end, CLOSE_MARK)
    return [(start, end, mark) for start, (end, mark) in sorted(done.items())]


def neutralise(text: str) -> str:
    """``text`` with every tag that could open or close a block of a prompt made plain text.

    Idempotent, and the identity on text with no such tag. What remains reads as before: only
    the brackets change, to ``‹`` and ``›``.
    """
    spans = _replacements(text)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end, mark in spans:
        pieces.append(text[last:start])
        pieces.append(mark)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def find_markup(text: str) -> list[MarkupFinding]:
    """The tag-like pieces :func:`neutralise` would change, each with a little of what follows it.

    For reports (``memdir doctor``, team sync): the text is the original, control characters and
    all, so a caller prints it through its own escaping.
    """
    findings: list[MarkupFinding] = []
    for start, end, mark in _replacements(text):
        if mark == OPEN_MARK:
            stop = min(len(text), start + 40)
            closing = text.find(">", end, stop)
            stop = closing + 1 if closing >= 0 else stop
        else:
            stop = end
            start = max(0, start - 40)
        if findings and start < findings[-1].end:
            continue  # the closing bracket of a tag already reported
        findings.append(MarkupFinding(start, stop, text[start:stop]))
    return findings


def describe_markup(text: str) -> str:
    """What reads as a prompt tag in ``text``, printable and on one line, or "" when nothing does:
    the note a report (doctor, team sync, the dashboard) shows next to the file."""
    found = find_markup(text)
    if not found:
        return ""
    first = printable(" ".join(found[0].text.split()))
    return first if len(found) == 1 else f"{first} (and {len(found) - 1} more)"
