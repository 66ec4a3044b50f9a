"""What Claude Code loads of a ``MEMORY.md``: all of it, or the part before a cut, and what that leaves out.

Claude Code loads at most 200 lines and 25,000 bytes of the index (it counts UTF-16 code units,
which are bytes for ASCII), cutting at the last whole line, and adds a warning that names the
file's size but not what was dropped. A session cannot tell which memories it no longer sees;
:func:`index_load` says it: the limit that cut, the file's last line loaded, and every entry
past it. From 2.1.211 the frontmatter and block HTML comments do not count (``skip_comments``).
:func:`compact_index` is the repair ``memdir doctor --fix`` makes: the same entries, in fewer bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from memdir.model.index import (
    MAX_ENTRY_CHARS,
    MAX_ENTRYPOINT_BYTES,
    MAX_ENTRYPOINT_LINES,
    IndexEntry,
    measured_index,
    parse_entries,
)
from memdir.model.text import utf16_len

__all__ = ["IndexLoad", "compact_index", "index_load", "truncation_message"]

# The longest an entry line may stay, tried in turn until Claude Code loads the whole index: the
# line length Claude Code asks for, then shorter hooks, down to little more than the link.
COMPACT_LIMITS = (MAX_ENTRY_CHARS, 120, 100, 80, 60, 40)

_WARNING = "\n\n> WARNING: "


@dataclass(frozen=True)
class IndexLoad:
    """How much of one index Claude Code loads.

    ``line_count`` and ``byte_count`` are the sizes Claude Code measures (after its trim, and
    without frontmatter and comments where the release skips them); ``last_line`` is the file's
    last line that reaches the model whole (None when nothing is cut); ``dropped`` the entries
    after it, with their line numbers in the file.
    """

    line_count: int
    byte_count: int
    by_lines: bool = False
    by_bytes: bool = False
    last_line: int | None = None
    dropped: tuple[tuple[int, IndexEntry], ...] = ()

    @property
    def truncated(self) -> bool:
        return self.by_lines or self.by_bytes

    @property
    def cause(self) -> str:
        """The limit that cut, in words (empty when nothing is cut)."""
        lines = f"the {MAX_ENTRYPOINT_LINES}-line limit"
        size = f"the {MAX_ENTRYPOINT_BYTES:,}-byte limit"
        if self.by_lines and self.by_bytes:
            return f"{lines} and {size}"
        return lines if self.by_lines else size if self.by_bytes else ""


def _same(file_line: str, loaded_line: str) -> bool:
    """A loaded line is the file's line, trimmed, or what a comment closing on it left of it."""
    loaded = loaded_line.strip()
    return file_line.strip() == loaded or (bool(loaded) and file_line.rstrip().endswith(loaded))


def _last_file_line(text: str, loaded: str) -> int:
    """The file's line number of the last line of ``loaded`` that is whole in it (0: none).

    ``loaded`` is the file with lines left out (the trim, frontmatter, comments) and cut: its lines
    are found in order among the file's. A last line cut inside (an index of one huge line) is
    not whole, so it does not count.
    """
    file_lines = text.split("\n")
    wanted = loaded.split("\n")
    position = 0
    last = 0
    for number, line in enumerate(wanted):
        final = number == len(wanted) - 1
        while position < len(file_lines) and not _same(file_lines[position], line):
            if final and line.strip() and file_lines[position].strip().startswith(line.strip()):
                return last  # the cut went through this line
            position += 1
        if position == len(file_lines):
            return last
        position += 1
        last = position
    return last


def index_load(text: str, *, skip_comments: bool) -> IndexLoad:
    """What Claude Code loads of the index ``text`` (see the module docstring)."""
    loaded = measured_index(text, skip_comments=skip_comments)
    if not loaded.was_truncated:
        return IndexLoad(loaded.line_count, loaded.byte_count)
    last = _last_file_line(text, loaded.content.rsplit(_WARNING, 1)[0])
    dropped = tuple((number, entry) for number, entry in parse_entries(text) if number > last)
    return IndexLoad(
        loaded.line_count, loaded.byte_count, loaded.was_line_truncated, loaded.was_byte_truncated, last, dropped
    )


def _without_blank_lines_between_entries(lines: list[str], entry_lines: set[int]) -> list[str]:
    """Drop the blank lines that only separate two entries: each counts against the line limit."""
    kept: list[str] = []
    for number, line in enumerate(lines):
        if not line.strip() and kept and number + 1 < len(lines):
            before = next((n for n in range(number - 1, -1, -1) if lines[n].strip()), None)
            after = next((n for n in range(number + 1, len(lines)) if lines[n].strip()), None)
            if before in entry_lines and after in entry_lines:
                continue
        kept.append(line)
    return kept


def _shortened(lines: list[str], entries: dict[int, IndexEntry], limit: int) -> list[str]:
    out = []
    for number, line in enumerate(lines):
        entry = entries.get(number)
        body = line.removesuffix("\r")
        if entry is not None and utf16_len(body) > limit:
            shorter = entry.render(limit)
            if utf16_len(shorter) < utf16_len(body):
                line = shorter + line[len(body) :]
        out.append(line)
    return out


def compact_index(text: str, *, skip_comments: bool) -> str:
    """``text`` with what makes Claude Code cut it made smaller, without losing an entry.

    Blank lines between two entries go; then entry lines longer than a cap are written again
    shorter (the hook cut with "…": the memory keeps its whole description), the cap lowered
    step by step (:data:`COMPACT_LIMITS`) until the index loads whole. Other lines stay byte for
    byte. An index that is cut by its number of lines alone keeps its line lengths: only fewer
    entries (merged or removed memories) can help it. Returns ``text`` when nothing is cut.
    """
    if not index_load(text, skip_comments=skip_comments).truncated:
        return text
    lines = text.split("\n")
    entry_lines = {number - 1 for number, _ in parse_entries(text)}
    lines = _without_blank_lines_between_entries(lines, entry_lines)
    compacted = "\n".join(lines)
    load = index_load(compacted, skip_comments=skip_comments)
    if not load.by_bytes:
        return compacted
    entries = {number - 1: entry for number, entry in parse_entries(compacted)}
    for limit in COMPACT_LIMITS:
        compacted = "\n".join(_shortened(lines, entries, limit))
        if not index_load(compacted, skip_comments=skip_comments).by_bytes:
            break
    return compacted


_NAMED_AT_MOST = 5  # memories a message names before "and N more"


def truncation_message(index_rel: str, load: IndexLoad) -> str:
    """Which limit cuts the index, where, which memories that hides from Claude Code, and the fix."""
    size = f"{load.line_count} lines" if load.by_lines else f"{load.byte_count:,} bytes"
    if load.by_lines and load.by_bytes:
        size = f"{load.line_count} lines and {load.byte_count:,} bytes"
    where = f"only up to line {load.last_line}" if load.last_line else "none of it"
    files = [entry.file for _, entry in load.dropped]
    more = len(files) - _NAMED_AT_MOST
    named = ", ".join(files[:_NAMED_AT_MOST]) + (f" and {more} more" if more > 0 else "")
    hidden = (
        f"the {len(files)} {'memory' if len(files) == 1 else 'memories'} listed after it "
        f"({named}) {'is' if len(files) == 1 else 'are'} not in its context"
        if files
        else "no memory is listed after it"
    )
    fix = (
        "remove stale memories or merge related ones: each memory takes a line"
        if load.by_lines and not load.by_bytes
        else "keep each index line short (one line under ~150 characters); 'memdir doctor --fix' compacts "
        "long lines, then remove stale memories or merge related ones if it is still cut"
    )
    return f"{index_rel} is {size}, over {load.cause}: Claude Code loads {where}, so {hidden}. Fix: {fix}"
