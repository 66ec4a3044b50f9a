"""Batch ranking for evaluation: many independent queries against one memory directory.

Each line of the input is a JSON object with a ``query`` string; every other key is passed
through untouched, so a benchmark can carry its gold answers alongside. Each query is ranked
on its own (no session budget, nothing de-duplicated across queries) over every memory in the
directory, whatever the scan cap, and the whole file runs in one process so that models and
indexes load once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from memdir.errors import ConfigError
from memdir.recall.selector_protocol import RankingSelector, SelectionRequest
from memdir.store.scan import MemoryHeader

__all__ = ["BatchQuery", "parse_batch_line", "rank_batch"]


@dataclass(frozen=True)
class BatchQuery:
    query: str
    extra: dict[str, Any]
    line: int


def parse_batch_line(text: str, *, line: int, source: str = "<batch>") -> BatchQuery | None:
    """One input line as a query; None for a blank line. Raises :class:`ConfigError` naming the line."""
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"{source}:{line}: not JSON ({exc.msg}); write one JSON object per line"
        raise ConfigError(message, rule="batch") from exc
    if not isinstance(value, dict) or not isinstance(value.get("query"), str):
        raise ConfigError(f'{source}:{line}: expected an object with a "query" string', rule="batch")
    extra = {key: item for key, item in value.items() if key != "query"}
    return BatchQuery(query=value["query"], extra=extra, line=line)


def rank_batch(
    lines: Iterable[str],
    candidates: Sequence[MemoryHeader],
    selector: RankingSelector,
    *,
    limit: int = 10,
    source: str = "<batch>",
) -> Iterator[dict[str, Any]]:
    """One result object per query: passed-through keys, then ``query``, ``ranked`` (best first, at
    most ``limit``), ``surfaced`` (what recall would surface: the ranking above the relevance floor)
    and ``ms`` (the time the ranking took)."""
    for number, text in enumerate(lines, start=1):
        item = parse_batch_line(text, line=number, source=source)
        if item is None:
            continue
        started = time.perf_counter()
        ranked = [header.filename for header, _ in selector.rank(item.query, candidates)[:limit]]
        elapsed = (time.perf_counter() - started) * 1000
        surfaced = selector.select(SelectionRequest(item.query, candidates, limit=limit)).files
        yield {**item.extra, "query": item.query, "ranked": ranked, "surfaced": list(surfaced), "ms": round(elapsed, 3)}
