"""What makes the memory list pleasant to scan: counts per type, newest-first groups by day or week,
and the searched words highlighted in each result. Pure helpers the list page and its template use."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

from markupsafe import Markup, escape

from memdir.model.memory import MEMORY_TYPES
from memdir.store.scan import MemoryHeader

__all__ = ["day_group", "highlight", "type_counts"]


def type_counts(headers: Sequence[MemoryHeader]) -> list[tuple[str, int]]:
    """``(type, how many)`` for every type, then ``untyped`` when some memory has none."""
    counted = Counter(header.type.value if header.type else "untyped" for header in headers)
    order = [t.value for t in MEMORY_TYPES] + ["untyped"]
    return [(name, counted[name]) for name in order if counted[name] or name != "untyped"]


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
