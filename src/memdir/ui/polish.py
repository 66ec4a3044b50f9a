"""What makes the memory list pleasant to scan: counts per type, newest-first groups by day or week,
and the searched words highlighted in each result. Pure helpers the list page and its template use."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from urllib.parse import quote

from markupsafe import Markup, escape

from memdir.model.analysis import STOP_WORDS
from memdir.model.memory_type import MEMORY_TYPES
from memdir.store.links import LINK
from memdir.store.scan import MemoryHeader
from memdir.ui.links_panel import LinkRow

__all__ = ["TypeCounts", "day_group", "highlight", "matched_words", "render_body", "type_counts"]


def type_counts(headers: Sequence[MemoryHeader]) -> list[tuple[str, int]]:
    """``(type, how many)`` for every type, then ``untyped`` when some memory has none."""
    counted = Counter(header.type.value if header.type else "untyped" for header in headers)
    order = [t.value for t in MEMORY_TYPES] + ["untyped"]
    return [(name, counted[name]) for name in order if counted[name] or name != "untyped"]


class TypeCounts:
    """:func:`type_counts`, kept for the last list it counted. Every list page shows the counts,
    and counting every header took 40 to 80 ms of each page at 100,000 memories; an unchanged
    store hands back an equal list (the same header objects, so comparing is an identity check
    per element, in C), which is not counted again. Not for use by two threads at once."""

    def __init__(self) -> None:
        self._last: tuple[list[MemoryHeader], list[tuple[str, int]]] | None = None

    def __call__(self, headers: Sequence[MemoryHeader]) -> list[tuple[str, int]]:
        last = self._last
        if last is not None and last[0] == headers:
            return last[1]
        counts = type_counts(headers)
        self._last = (list(headers), counts)
        return counts


def day_group(mtime_ms: float, now_ms: float) -> str:
    """The heading a memory is listed under, newest first: Today, Yesterday, This week, Last week,
    then the month (``November 2026``)."""
    then = datetime.fromtimestamp(mtime_ms / 1000, tz=UTC).date()
    today = datetime.fromtimestamp(now_ms / 1000, tz=UTC).date()
    days = (today - then).days
    if days <= 0:
        return "Today"
    if days == 1:
        return "Yesterday"
    if days < 7:
        return "This week"
    if days < 14:
        return "Last week"
    return then.strftime("%B %Y")


def highlight(text: str, query: str) -> Markup:
    """``text`` escaped, with every word of ``query`` (three letters or more, any case) in ``<mark>``."""
    words = sorted({w for w in re.findall(r"\w+", query.casefold()) if len(w) >= 3}, key=len, reverse=True)
    if not words:
        return Markup(escape(text))
    pattern = re.compile("|".join(re.escape(word) for word in words), re.IGNORECASE)
    out: list[str] = []
    position = 0
    for match in pattern.finditer(text):
        out.append(str(escape(text[position : match.start()])))
        out.append(f"<mark>{escape(match.group(0))}</mark>")
        position = match.end()
    out.append(str(escape(text[position:])))
    return Markup("".join(out))


def matched_words(query: str, text: str) -> str:
    """The words of ``query`` (three letters or more, not a word recall ignores such as "the")
    that ``text`` contains, comma-separated: why a lexical recall chose a memory, in words a
    person can check."""
    found = text.casefold()
    words = dict.fromkeys(
        w for w in re.findall(r"\w+", query.casefold()) if len(w) >= 3 and w not in STOP_WORDS and w in found
    )
    return ", ".join(words)


_INLINE = re.compile(r"\*\*(?P<bold>[^*]+)\*\*|`(?P<code>[^`]+)`|(?P<link>" + LINK.pattern + ")")


def _link(text: str, links: Mapping[str, str | None]) -> str:
    """A ``[[name]]`` link: to the memory it reaches, or marked as reaching none yet."""
    match = LINK.fullmatch(text)
    target = match.group(1).strip() if match else text
    shown = match.group(3)[1:].strip() if match and match.group(3) else target
    file = links.get(target)
    if file is None:
        return f'<span class="dangling" title="no memory named {escape(target)} yet">{escape(text)}</span>'
    return f'<a class="memory-link" href="/m/{escape(quote(file))}">{escape(shown)}</a>'


def _inline(line: str, links: Mapping[str, str | None]) -> str:
    out: list[str] = []
    position = 0
    for match in _INLINE.finditer(line):
        out.append(str(escape(line[position : match.start()])))
        if match.group("bold") is not None:
            out.append(f"<strong>{escape(match.group('bold'))}</strong>")
        elif match.group("code") is not None:
            out.append(f"<code>{escape(match.group('code'))}</code>")
        else:
            out.append(_link(match.group("link"), links))
        position = match.end()
    out.append(str(escape(line[position:])))
    return "".join(out)


def render_body(body: str, links: Iterable[LinkRow] = ()) -> Markup:
    """A memory's body for reading: paragraphs, ``- `` lists, headings, **bold**, `code` and
    ``[[links]]`` (to the memory each reaches, from the page's :class:`LinkRow`s); every other
    character escaped (a memory is text someone else may have written)."""
    reached = {row.target: row.file for row in links}
    html: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if paragraph:
            html.append("<p>" + "<br>".join(paragraph) + "</p>")
            paragraph.clear()
        if items:
            html.append("<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
            items.clear()

    for raw in body.split("\n"):
        line = raw.rstrip()
        if not line.strip():
            flush()
        elif re.match(r"\s*[-*] ", line):
            if paragraph:
                flush()
            items.append(_inline(re.sub(r"^\s*[-*] ", "", line), reached))
        elif line.startswith("#"):
            flush()
            html.append(f"<h3>{_inline(line.lstrip('#').strip(), reached)}</h3>")
        else:
            if items:
                flush()
            paragraph.append(_inline(line, reached))
    flush()
    return Markup("".join(html))
