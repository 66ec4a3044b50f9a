"""The MEMORY.md index: one Markdown link line per memory, and the truncation applied on load.

Claude Code never parses index lines; the model writes them by hand. memdir edits them for the
model, so editing is deliberately line-local: it touches only the lines that link to the file
at hand and keeps every other line (headings, prose, the user's own notes) byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memdir.errors import MemoryFormatError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.markup import describe_markup, neutralise
from memdir.model.printable import printable
from memdir.model.text import js_trim, utf16_len, utf16_prefix

__all__ = [
    "MAX_ENTRYPOINT_BYTES",
    "MAX_ENTRYPOINT_LINES",
    "MAX_ENTRY_CHARS",
    "IndexEntry",
    "TruncatedIndex",
    "format_file_size",
    "index_overflow",
    "measured_index",
    "neutralise_index",
    "parse_entries",
    "remove_entries",
    "remove_entry",
    "rename_entry",
    "truncate_entrypoint_content",
    "upsert_entries",
    "upsert_entry",
]

MAX_ENTRYPOINT_LINES = 200
MAX_ENTRYPOINT_BYTES = 25_000
MAX_ENTRY_CHARS = 150

_HOOK_SEPARATOR = " \u2014 "
_ELLIPSIS = "\u2026"
_BULLET_RE = re.compile(r"[-*+][ \t]+\[")
_FENCE_RE = re.compile(r" {0,3}(```|~~~)")
_TITLE_SPECIALS = "\\[]"
# The first character of a line that may open or close a code fence (after up to three spaces).
_FENCE_STARTS = frozenset("`~")
# Up to this many files, an edit parses only the lines that may name them (see _lines_naming).
_FILTERED_FILES = 16
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _to_fixed_1(value: float) -> str:
    """``Number.prototype.toFixed(1)``: rounds the exact binary value, ties away from zero."""
    from decimal import ROUND_HALF_UP, Decimal  # here: only an oversized index needs it

    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def format_file_size(n: int) -> str:
    """Claude Code's ``formatFileSize``, as it appears in the truncation warning."""
    kb = n / 1024
    if kb < 1:
        return f"{n} bytes"
    for unit, value in (("KB", kb), ("MB", kb / 1024)):
        if value < 1024:
            return _to_fixed_1(value).removesuffix(".0") + unit
    return _to_fixed_1(kb / 1024 / 1024).removesuffix(".0") + "GB"


@dataclass(frozen=True)
class TruncatedIndex:
    """The index text as loaded into the prompt, with the original (post-trim) sizes."""

    content: str
    line_count: int
    byte_count: int
    was_line_truncated: bool
    was_byte_truncated: bool

    @property
    def was_truncated(self) -> bool:
        return self.was_line_truncated or self.was_byte_truncated


def truncate_entrypoint_content(raw: str) -> TruncatedIndex:
    """Cap the index at 200 lines and 25,000 UTF-16 units, appending Claude Code's warning.

    Where JS would slice through a surrogate pair, the whole character is dropped instead.
    """
    trimmed = js_trim(raw)
    lines = trimmed.split("\n")
    line_count = len(lines)
    byte_count = utf16_len(trimmed)
    was_line = line_count > MAX_ENTRYPOINT_LINES
    was_byte = byte_count > MAX_ENTRYPOINT_BYTES
    if not was_line and not was_byte:
        return TruncatedIndex(trimmed, line_count, byte_count, False, False)

    out = "\n".join(lines[:MAX_ENTRYPOINT_LINES]) if was_line else trimmed
    if utf16_len(out) > MAX_ENTRYPOINT_BYTES:
        cut = utf16_prefix(out, MAX_ENTRYPOINT_BYTES + 1).rfind("\n")
        out = out[:cut] if cut > 0 else utf16_prefix(out, MAX_ENTRYPOINT_BYTES)

    if was_byte and not was_line:
        reason = (
            f"{format_file_size(byte_count)} (limit: {format_file_size(MAX_ENTRYPOINT_BYTES)})"
            " \u2014 index entries are too long"
        )
    elif was_line and not was_byte:
        reason = f"{line_count} lines (limit: {MAX_ENTRYPOINT_LINES})"
    else:
        reason = f"{line_count} lines and {format_file_size(byte_count)}"
    warning = (  # Claude Code's wording (SPEC 3.2), kept as data: the index reads as Claude Code loads it
        f"\n\n> WARNING: {ENTRYPOINT_NAME} is {reason}. Only part of it was loaded. Keep index entries"
        " to one line under ~200 chars; move detail into topic files."
    )
    return TruncatedIndex(out + warning, line_count, byte_count, was_line, was_byte)


def measured_index(text: str, *, skip_comments: bool) -> TruncatedIndex:
    """The index ``text`` as Claude Code measures and cuts it: with ``skip_comments`` (Claude Code
    2.1.211 and later) without the frontmatter and block HTML comments, which never reach the model."""
    if skip_comments:
        from memdir.model.frontmatter import parse_frontmatter
        from memdir.model.markdown import strip_block_html_comments

        text = strip_block_html_comments(parse_frontmatter(text)[1])
    return truncate_entrypoint_content(text)


def index_overflow(text: str, *, skip_comments: bool) -> str | None:
    """Why ``text`` is more index than Claude Code loads (200 lines, 25,000 UTF-16 units), or None.

    With ``skip_comments`` (Claude Code 2.1.211 and later) the frontmatter and block HTML
    comments do not count, as they never reach the model.
    """
    if not truncate_entrypoint_content(text).was_truncated:
        return None  # leaving out the frontmatter and comments only makes it shorter
    loaded = measured_index(text, skip_comments=skip_comments)
    if not loaded.was_truncated:
        return None
    lines, size = f"{loaded.line_count} lines", f"{loaded.byte_count:,} bytes"
    limit_lines, limit_size = f"{MAX_ENTRYPOINT_LINES} lines", f"{MAX_ENTRYPOINT_BYTES:,} bytes"
    if loaded.was_line_truncated and loaded.was_byte_truncated:
        over = f"{lines} and {size}, over both the {limit_lines} and the {limit_size}"
    else:
        over = f"{lines}, over the {limit_lines}" if loaded.was_line_truncated else f"{size}, over the {limit_size}"
    fix = (
        "remove stale memories or merge related ones (each memory takes a line)"
        if not loaded.was_byte_truncated
        else "shorten index lines (one line under ~150 characters per memory; 'memdir doctor --fix' compacts "
        "them), or remove stale memories"
    )
    return f"it would be {over} Claude Code loads; rule index-too-long; {fix}"


def _escape(text: str, specials: str) -> str:
    return "".join("\\" + ch if ch in specials else ch for ch in text)


def _unescape(text: str) -> str:
    """CommonMark backslash escapes: only ASCII punctuation can be escaped."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ASCII_PUNCTUATION:
            out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _one_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def _link_target(file: str) -> str:
    if any(ch in file for ch in " \t") or file.startswith("<"):
        return "<" + _escape(file, "\\<>") + ">"
    return _escape(file, "\\()")


@dataclass(frozen=True)
class IndexEntry:
    """One index line: a link to a topic file and a short hook saying when it matters."""

    title: str
    file: str
    hook: str

    def __post_init__(self) -> None:
        if not self.file or any(ord(ch) < 0x20 or ch == "\x7f" for ch in self.file):
            raise MemoryFormatError(
                f"index entry for {self.file!r}: the file name is empty or holds control characters; "
                "rule index-entry-file; use a plain relative path such as feedback_testing.md",
                rule="index-entry-file",
                path=self.file,
            )
        if tag := describe_markup(self.file):
            # A link target cannot be neutralised without breaking the link, and Claude Code loads
            # the index into the prompt as it is: such a name never gets an index line.
            raise MemoryFormatError(
                f"index entry for {printable(self.file)!r}: the file name reads as a prompt tag ({tag}); "
                "rule index-entry-markup; rename the file without angle brackets",
                rule="index-entry-markup",
                path=self.file,
            )

    def _line(self, title: str, hook: str) -> str:
        link = f"- [{_escape(_one_line(title), _TITLE_SPECIALS)}]({_link_target(self.file)})"
        return f"{link}{_HOOK_SEPARATOR}{hook}" if hook else link

    def render(self, limit: int = MAX_ENTRY_CHARS) -> str:
        """``- [Title](file) — hook``, shortened with "…" to fit ``limit`` (UTF-16 units) when it can.

        The title and hook are neutralised (:func:`memdir.model.markup.neutralise`): Claude Code
        loads ``MEMORY.md`` into the prompt itself, so no other step would stop a name or a
        description holding ``</system-reminder>`` from closing the block it is loaded in."""
        title = neutralise(_one_line(self.title))
        hook = neutralise(_one_line(self.hook).strip())
        line = self._line(title, hook)
        if utf16_len(line) <= limit:
            return line
        bare = self._line(title, "")
        room = limit - utf16_len(bare) - len(_HOOK_SEPARATOR) - 1
        if room >= 1:
            return self._line(title, utf16_prefix(hook, room).rstrip() + _ELLIPSIS)
        keep = min(len(title), limit)
        while keep > 1:
            shortened = self._line(title[:keep].rstrip() + _ELLIPSIS, "")
            if utf16_len(shortened) <= limit:
                return shortened
            keep -= 1
        return self._line(title[:1] + _ELLIPSIS, "")


@dataclass(frozen=True)
class _ParsedLine:
    """An index line's entry and where its link target sits in the line, so an edit can replace just that."""

    entry: IndexEntry
    target_start: int
    target_end: int


def _scan_bracketed(line: str, start: int, opener: str, closer: str) -> int:
    """Index of the ``closer`` that balances the text from ``start``, or -1."""
    depth = 0
    i = start
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == opener:
            depth += 1
        elif ch == closer:
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return -1


def _parse_line(line: str) -> _ParsedLine | None:
    line = line.removesuffix("\r")
    bullet = _BULLET_RE.match(line)
    if bullet is None:
        return None
    title_end = _scan_bracketed(line, bullet.end(), "[", "]")
    if title_end < 0 or line[title_end + 1 : title_end + 2] != "(":
        return None
    target_start = title_end + 2
    if line[target_start : target_start + 1] == "<":
        close = _scan_bracketed(line, target_start + 1, "<", ">")
        if close < 0 or line[close + 1 : close + 2] != ")":
            return None
        file = _unescape(line[target_start + 1 : close])
        target_end = close + 1
    else:
        target_end = _scan_bracketed(line, target_start, "(", ")")
        if target_end < 0:
            return None
        file = _unescape(line[target_start:target_end])
        if not file or any(ch in file for ch in " \t"):
            return None
    rest = line[target_end + 1 :].strip()
    for separator in ("\u2014", "\u2013", "-", ":"):
        if rest.startswith(separator):
            rest = rest[len(separator) :].strip()
            break
    title = _unescape(line[bullet.end() : title_end])
    try:
        entry = IndexEntry(title=title, file=file, hook=rest)
    except MemoryFormatError:
        return None
    return _ParsedLine(entry, target_start, target_end)


def _fences(text: str) -> tuple[dict[int, int], int | None]:
    """The code fences of an index: the line (0-based) each fenced block opens on -> the line it
    closes on, and the line of a fence left open at the end (its block runs to the end)."""
    if "```" not in text and "~~~" not in text:
        return {}, None
    blocks: dict[int, int] = {}
    fence: str | None = None
    opened = 0
    for number, line in enumerate(text.split("\n")):
        match = _FENCE_RE.match(line) if line[:4].lstrip(" ")[:1] in _FENCE_STARTS else None
        if match is None:
            continue
        if fence is None:
            fence, opened = match.group(1), number
        elif match.group(1) == fence:
            blocks[opened] = number
            fence = None
    return blocks, None if fence is None else opened


def _scan_lines(
    lines: list[str], numbers: Iterable[int] | None = None
) -> tuple[list[tuple[int, _ParsedLine]], int | None]:
    """Entry lines outside fenced code blocks (0-based), and where an unclosed fence opens; with
    ``numbers``, only those lines are looked at (the others cannot be the entries sought)."""
    blocks, open_fence = _fences("\n".join(lines))
    fenced = {n for opened, closed in blocks.items() for n in range(opened, closed + 1)}
    if open_fence is not None:
        fenced.update(range(open_fence, len(lines)))
    found: list[tuple[int, _ParsedLine]] = []
    for number in range(len(lines)) if numbers is None else sorted(numbers):
        if number not in fenced:
            parsed = _parse_line(lines[number])
            if parsed is not None:
                found.append((number, parsed))
    return found, open_fence


def _parsed_lines(lines: list[str]) -> list[tuple[int, _ParsedLine]]:
    return _scan_lines(lines)[0]


def _lines_naming(lines: list[str], files: Iterable[str]) -> set[int] | None:
    """The lines (0-based) that may link to one of ``files`` (every line that does is among them),
    found by searching the text rather than parsing each line, so that editing a few entries of a
    long index parses only the lines that name them; None when the files are many or a name holds
    a backslash, and every line is to be parsed.

    A link target is the file name with backslashes put before some punctuation (or the same in
    angle brackets), so a line that links to a file holds the name once its backslashes are gone.
    """
    names = [file.removeprefix("./") for file in files]
    if len(names) > _FILTERED_FILES or any("\\" in name or not name for name in names):
        return None
    text = "\n".join(lines)
    if "\\" in text:
        text = text.replace("\\", "")  # never a newline: the line numbers stay
    found: set[int] = set()
    for name in names:
        at = text.find(name)
        while at >= 0:
            found.add(text.count("\n", 0, at))
            at = text.find(name, at + 1)
    return found


def _entry_position(lines: list[str]) -> int:
    """Where a new entry goes: after the last entry line (outside code fences), else at the end, or
    before a code fence left open at the end, where it would not count as an entry. Read from the
    end, so a long index is not parsed whole for one new line."""
    blocks, open_fence = _fences("\n".join(lines))
    number = len(lines) if open_fence is None else open_fence
    closes = {closed: opened for opened, closed in blocks.items()}
    while number > 0:
        number -= 1
        if number in closes:
            number = closes[number]  # skip the block, its fences included
            continue
        if _parse_line(lines[number]) is not None:
            return number + 1
    return len(lines) if open_fence is None else open_fence


def parse_entries(index_text: str) -> list[tuple[int, IndexEntry]]:
    """``(1-based line number, entry)`` for every line of ``index_text`` that is an index entry."""
    return [(number + 1, parsed.entry) for number, parsed in _parsed_lines(index_text.split("\n"))]


def neutralise_index(index_text: str) -> str:
    """``index_text`` with every line neutralised (:func:`memdir.model.markup.neutralise`), the link
    target of an entry line kept as it is so the line still points at its file.

    For an index memdir derives from other people's words (the team index, from a teammate's
    frontmatter and prose): Claude Code loads it into the prompt as it is on disk."""
    lines = index_text.split("\n")
    targets = {number: parsed for number, parsed in _parsed_lines(lines)}
    out: list[str] = []
    for number, line in enumerate(lines):
        parsed = targets.get(number)
        if parsed is None:
            out.append(neutralise(line))
            continue
        start, end = parsed.target_start, parsed.target_end
        out.append(neutralise(line[:start]) + line[start:end] + neutralise(line[end:]))
    return "\n".join(out)


def _same_file(a: str, b: str) -> bool:
    return a.removeprefix("./") == b.removeprefix("./")


def _split(index_text: str) -> list[str]:
    lines = index_text.split("\n")
    while lines and not lines[-1].strip("\r"):
        lines.pop()
    return lines


def _join(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def upsert_entry(index_text: str, entry: IndexEntry) -> str:
    """Replace the first line linking to ``entry.file`` (dropping later ones), else add a line.

    A new line goes right after the last existing entry, or at the end when there is none (but
    before a code fence left open at the end, where it would not count as an entry).
    """
    return upsert_entries(index_text, [entry])


def upsert_entries(index_text: str, entries: Sequence[IndexEntry]) -> str:
    """:func:`upsert_entry` for many entries in one pass over the text (a repair of 10,000 lines
    is linear, not 10,000 passes); new lines keep the order given."""
    lines = _split(index_text)
    crlf = bool(lines) and lines[0].endswith("\r")
    wanted = {entry.file.removeprefix("./"): entry for entry in entries}
    seen: set[str] = set()
    doomed: set[int] = set()
    for number, parsed in _scan_lines(lines, _lines_naming(lines, wanted))[0]:
        key = parsed.entry.file.removeprefix("./")
        if key not in wanted:
            continue
        if key in seen:
            doomed.add(number)
            continue
        seen.add(key)
        lines[number] = wanted[key].render() + ("\r" if lines[number].endswith("\r") else "")
    if doomed:
        lines = [line for number, line in enumerate(lines) if number not in doomed]
    added = [entry.render() + ("\r" if crlf else "") for key, entry in wanted.items() if key not in seen]
    if added:
        position = _entry_position(lines)
        lines[position:position] = added
    return _join(lines)


def remove_entry(index_text: str, file: str) -> str:
    """Drop every entry line linking to ``file``; text without such a line comes back unchanged."""
    return remove_entries(index_text, [file])


def remove_entries(index_text: str, files: Iterable[str]) -> str:
    """Drop every entry line linking to any of ``files``, in one pass; unchanged text when none does."""
    targets = {file.removeprefix("./") for file in files}
    lines = index_text.split("\n")
    found = _scan_lines(lines, _lines_naming(lines, targets))[0]
    doomed = {n for n, parsed in found if parsed.entry.file.removeprefix("./") in targets}
    if not doomed:
        return index_text
    kept = [line for n, line in enumerate(lines) if n not in doomed]
    return _join(_split("\n".join(kept)))


def rename_entry(index_text: str, old_file: str, new_file: str) -> str:
    """Point every entry linking to ``old_file`` at ``new_file``, keeping its title and hook as typed."""
    IndexEntry(title="", file=new_file, hook="")
    lines = index_text.split("\n")
    changed = False
    for number, parsed in _parsed_lines(lines):
        if _same_file(parsed.entry.file, old_file):
            line = lines[number]
            lines[number] = line[: parsed.target_start] + _link_target(new_file) + line[parsed.target_end :]
            changed = True
    return "\n".join(lines) if changed else index_text
