"""Time-aware ordering: where two ranked memories answer a query about the same subject, the newer first.

A store keeps what was true when each memory was written: "the checkout API's p95 is 950 ms" and,
weeks later, "after the cache it is 140 ms". Relevance alone ranks whichever shares more words with
the question, which is the stale one about as often as not. This stage runs after scoring, on any
selector's ranking: among the best candidates it finds groups that are about one subject *for this
query*, and gives each group's places in the ranking to its members newest first. Nothing else
moves, so it is not a recency boost: a year-old rule that nothing newer restates keeps its place.

Two candidates are about one subject when

- their descriptions say much the same apart from values (the idf-weighted overlap of their words,
  numbers left out since a number is what an update changes, reaches ``SUBJECT_FLOOR``), and
- they match the query the same way (the idf-weighted overlap of the query words each one holds
  reaches ``QUERY_FLOOR``): "the search service's HTTP client" and "the checkout API's HTTP
  client" read alike, but a question about the checkout API matches only one of them on its name.

A memory's time is its ``modified:`` stamp, else its mtime (:attr:`MemoryHeader.time_ms`). The
floors were chosen on ``bench/recall_truth.py`` and checked on LoCoMo (docs/recall.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from memdir.model.analysis import tokenize
from memdir.model.markup import neutralise
from memdir.store.scan import MemoryHeader

__all__ = [
    "QUERY_FLOOR",
    "SUBJECT_FLOOR",
    "WINDOW",
    "SubjectGroups",
    "admitted_newer_first",
    "newer_first",
    "newer_note",
    "newer_on_subject",
    "subject_terms",
]

SUBJECT_FLOOR = 0.3
QUERY_FLOOR = 0.6
WINDOW = 20  # only the head of a ranking is reordered: the tail is never surfaced
_DIGIT = re.compile(r"\d")
_CACHE_LIMIT = 4096
_terms: dict[tuple[str, float, int], frozenset[str]] = {}

_T = TypeVar("_T")


def subject_terms(header: MemoryHeader) -> frozenset[str]:
    """The words of a memory's description (its name when it has none), cached by file state.

    The description is the line written to say what a memory is about; the name and the body
    carry boilerplate as often as subject (a speaker, a session date), and with them the stage
    grouped memories about different events of one person on LoCoMo."""
    key = (header.path, header.mtime_ms, header.size)
    found = _terms.get(key)
    if found is None:
        found = frozenset(tokenize(header.description or header.name or ""))
        if len(_terms) >= _CACHE_LIMIT:
            _terms.clear()
        _terms[key] = found
    return found


def _overlap(a: frozenset[str], b: frozenset[str], weight: Callable[[str], float]) -> float:
    union = sum(weight(term) for term in a | b)
    return sum(weight(term) for term in a & b) / union if union else 0.0


class SubjectGroups:
    """Which of a few ranked memories are about one subject for one query."""

    def __init__(
        self,
        query: str,
        headers: Sequence[MemoryHeader],
        *,
        subject_floor: float = SUBJECT_FLOOR,
        query_floor: float = QUERY_FLOOR,
    ) -> None:
        self.asked = frozenset(tokenize(query))
        self.terms = [subject_terms(header) for header in headers]
        count = len(headers) + 1
        df: dict[str, int] = {}
        for terms in self.terms:
            for term in terms:
                df[term] = df.get(term, 0) + 1
        self._idf = {term: math.log(1.0 + count / (1 + seen)) for term, seen in df.items()}
        self.subject_floor = subject_floor
        self.query_floor = query_floor

    def weight(self, term: str) -> float:
        return self._idf.get(term, math.log(2.0))

    def same(self, i: int, j: int) -> bool:
        """Whether the ``i``-th and ``j``-th memories are about one subject for this query."""
        a, b = self.terms[i], self.terms[j]
        if self.asked and _overlap(a & self.asked, b & self.asked, self.weight) < self.query_floor:
            return False
        values = _DIGIT.search
        a_words = frozenset(term for term in a if not values(term))
        b_words = frozenset(term for term in b if not values(term))
        return _overlap(a_words, b_words, self.weight) >= self.subject_floor

    def groups(self) -> list[list[int]]:
        """Groups of more than one memory, members in ranking order: each group is the best-ranked
        memory not yet grouped and every later one about its subject. Membership is direct, never by
        a chain (a ~ b ~ c does not put a with c: each step may change the subject a little)."""
        taken = [False] * len(self.terms)
        found: list[list[int]] = []
        for i in range(len(self.terms)):
            if taken[i]:
                continue
            group = [i] + [j for j in range(i + 1, len(self.terms)) if not taken[j] and self.same(i, j)]
            if len(group) > 1:
                for j in group:
                    taken[j] = True
                found.append(group)
        return found


def newer_first(
    query: str, ranked: Sequence[tuple[MemoryHeader, _T]], *, window: int = WINDOW
) -> list[tuple[MemoryHeader, _T]]:
    """``ranked`` with, within its first ``window`` entries, each group of memories about one subject
    given the group's places newest first. Scores stay with the places, so a ranking stays sorted
    and a floor applied afterwards admits the same places (the newest member takes the best one)."""
    head = list(ranked[:window])
    if len(head) < 2:
        return list(ranked)
    headers = [header for header, _ in head]
    for group in SubjectGroups(query, headers).groups():
        newest = sorted(group, key=lambda i: (-headers[i].time_ms, i))
        moved = [headers[i] for i in newest]
        for place, header in zip(group, moved, strict=True):
            head[place] = (header, head[place][1])
    return head + list(ranked[window:])


def admitted_newer_first(
    query: str, ranked: Sequence[tuple[MemoryHeader, _T]], admitted: set[str], *, window: int = WINDOW
) -> list[MemoryHeader]:
    """The admitted part of ``ranked`` after :func:`newer_first`, admission going with the place: when
    a stale memory cleared a selector's floor and its newer version did not (it shares fewer words
    with the question), the newer one takes the stale one's place and is surfaced instead of it."""
    kept = [header.path in admitted for header, _ in ranked]
    staged = newer_first(query, ranked, window=window)
    return [header for (header, _), keep in zip(staged, kept, strict=True) if keep]


def newer_on_subject(query: str, headers: Sequence[MemoryHeader]) -> dict[str, MemoryHeader]:
    """For each memory in ``headers`` that another one about the same subject (for ``query``) is
    newer than: path -> the newest such memory. What recall uses to tell the model, beside a stale
    memory, which one is current."""
    if len(headers) < 2:
        return {}
    subjects = SubjectGroups(query, headers)
    newer: dict[str, MemoryHeader] = {}
    for i, header in enumerate(headers):
        for j, other in enumerate(headers):
            if i == j or other.time_ms <= header.time_ms or not subjects.same(i, j):
                continue
            best = newer.get(header.path)
            if best is None or other.time_ms > best.time_ms:
                newer[header.path] = other
    return newer


def newer_note(newer: MemoryHeader) -> str:
    """The line put above a surfaced memory when a newer one on its subject is surfaced too."""
    return f"A newer memory on the same subject: {neutralise(newer.path)}"
