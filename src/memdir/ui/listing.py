"""The memory list of the web view: filters, the offline search ranking, and pages.

A store may hold tens of thousands of memories, so a page shows a slice: filtering and ranking
work on headers (what a scan already knows), and only the rows of one page are turned into
view values. Search is the offline lexical ranking recall uses, over every memory rather than
recall's capped pool, so what a person finds here is what recall can find.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from memdir.errors import ConfigError
from memdir.model.memory_type import MEMORY_TYPES, MemoryType
from memdir.model.timefields import is_expired
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.surfacing import memory_age
from memdir.store.scan import MemoryHeader
from memdir.ui.polish import day_group

if TYPE_CHECKING:
    from memdir.store.ranked_store import RankedStore

__all__ = ["PER_PAGE", "SEARCH_LIMIT", "ListQuery", "ListRow", "MemoryPage", "list_memories", "parse_list_query"]

PER_PAGE = 50
# A search without filters keeps the best this many: nobody pages past them, and on a large store
# selecting them costs far less than sorting every memory that shares a word with the query.
SEARCH_LIMIT = 1000
_MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class ListQuery:
    """What the list page was asked for; every field already validated."""

    text: str = ""
    type: MemoryType | None = None
    since: date | None = None
    until: date | None = None
    page: int = 1


@dataclass(frozen=True)
class ListRow:
    file: str
    name: str
    description: str
    type: str | None
    age: str
    modified: str  # ISO date and time in UTC, for the <time> element
    expired: str | None = None  # the expires: date, when it has passed
    group: str = ""  # the day or week heading it is listed under (newest first, no search)


@dataclass(frozen=True)
class MemoryPage:
    rows: tuple[ListRow, ...]
    total: int  # memories matching the query and filters
    page: int
    pages: int
    store_total: int  # memories in the store
    # What the type chips count: the memories the search and dates leave, whatever their type;
    # None when nothing narrows the list (the chips then count the whole store).
    narrowed: tuple[MemoryHeader, ...] | None = None


def _date(value: str, field: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ConfigError(f"{field} {value!r} is not a date; use YYYY-MM-DD", rule="ui-date") from exc


def parse_list_query(params: dict[str, str]) -> ListQuery:
    """Validate the list page's query string; a bad value is a one-line error naming it."""
    kind = params.get("type", "")
    if kind and kind not in {t.value for t in MEMORY_TYPES}:
        names = ", ".join(t.value for t in MEMORY_TYPES)
        raise ConfigError(f"type {kind!r} is not one of {names}", rule="ui-type")
    page_text = params.get("page", "1") or "1"
    if not page_text.isdigit() or not 1 <= int(page_text) <= 1_000_000:
        raise ConfigError(f"page {page_text!r} is not a page number", rule="ui-page")
    text = params.get("q", "").strip()
    if len(text) > _MAX_QUERY_CHARS:
        raise ConfigError(f"the search is {len(text)} characters; the limit is {_MAX_QUERY_CHARS}", rule="ui-query")
    return ListQuery(
        text=text,
        type=MemoryType(kind) if kind else None,
        since=_date(params.get("since", ""), "since"),
        until=_date(params.get("until", ""), "until"),
        page=int(page_text),
    )


def _day_ms(day: date, *, end: bool) -> float:
    moment = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000
    return moment + (86_400_000 if end else 0)


def _keep(header: MemoryHeader, query: ListQuery, low: float, high: float) -> bool:
    if query.type is not None and header.type is not query.type:
        return False
    return low <= header.mtime_ms < high


def _row(header: MemoryHeader, now_ms: float) -> ListRow:
    modified = datetime.fromtimestamp(header.mtime_ms / 1000, tz=UTC).isoformat(timespec="seconds")
    return ListRow(
        file=header.filename,
        name=header.name or header.filename,
        description=header.description or "",
        type=header.type.value if header.type else None,
        age=memory_age(header.mtime_ms, now_ms),
        modified=modified.replace("+00:00", "Z"),
        expired=header.expires if is_expired(header.expires, time.strftime("%Y-%m-%d")) else None,
        group=day_group(header.mtime_ms, now_ms),
    )


def list_memories(
    headers: Sequence[MemoryHeader],
    query: ListQuery,
    *,
    ranker: LexicalSelector,
    now_ms: float,
    per_page: int = PER_PAGE,
    store: RankedStore | None = None,
) -> MemoryPage:
    """One page of the list: newest first, or best match first when there is a search. ``store``:
    the derived index holding ``headers``, where a search is ranked without analysing every memory
    in this process (``MemoryDir.ranked_store``); None ranks ``headers`` in memory."""
    low = _day_ms(query.since, end=False) if query.since else -math.inf
    high = _day_ms(query.until, end=True) if query.until else math.inf
    chosen: Sequence[MemoryHeader] = headers
    if query.text:
        filtered = query.type is not None or query.since or query.until
        ranked = None
        if store is not None:
            ranked = ranker.rank_store(query.text, store, limit=len(headers) if filtered else SEARCH_LIMIT)
        if ranked is None:
            ranked = ranker.rank(query.text, headers, limit=None if filtered else SEARCH_LIMIT)
        chosen = [header for header, _ in ranked]
    narrowed = None
    if query.text or query.since or query.until:
        narrowed = tuple(header for header in chosen if low <= header.mtime_ms < high)
    if query.type is not None or query.since or query.until:
        chosen = [header for header in chosen if _keep(header, query, low, high)]
    total = len(chosen)
    pages = max(1, math.ceil(total / per_page))
    page = min(query.page, pages)
    start = (page - 1) * per_page
    rows = tuple(_row(h, now_ms) for h in chosen[start : start + per_page])
    return MemoryPage(rows=rows, total=total, page=page, pages=pages, store_total=len(headers), narrowed=narrowed)
