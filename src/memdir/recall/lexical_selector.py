"""The lexical selector: BM25F over the memories' headers and the start of their bodies.

It needs no model and no network, so it is the default and the fallback of the model-backed
selector. The protocol it meets lives in :mod:`memdir.recall.selector_protocol`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memdir.model.analysis import is_pair, tokenize
from memdir.recall.lexical import FIELD_WEIGHTS, AnalysisCache, LexicalIndex
from memdir.recall.selector_protocol import (
    Selection,
    SelectionRequest,
    StoreRequest,
    StoreSelection,
    admitted_in_order,
    is_tool_manual,
    unexpired,
)
from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    from memdir.recall.stored_lexical import StoredPostings

__all__ = ["LexicalSelector"]


def _covered(weights: Mapping[str, float], terms: Mapping[str, float]) -> float:
    """The share of the query's information (idf mass, ``weights``) that a memory's ``terms`` hold;
    a word the store has never seen counts as one held by a single memory, so a question about
    something absent covers little. An unseen pair of characters (Chinese, Japanese, Korean) counts
    half: most are the seam between two words of the query ("写集" in "写集成测试")."""
    total = sum(weights.values())
    return sum(weight for term, weight in weights.items() if term in terms) / total if total else 0.0


class _TermStats(Protocol):
    """The counts the relevance floor reads: the in-memory index, or the stored postings."""

    def __len__(self) -> int: ...

    def idf(self, term: str) -> float: ...

    def terms_of(self, path: str) -> Mapping[str, float]: ...


class LexicalSelector:
    """BM25F ranking over name, description, type and the start of the body, under a relevance
    floor (docs/recall.md): what it ranks first is what BM25 scores highest."""

    name = "lexical"

    def __init__(
        self,
        *,
        min_score: float = 0.0,
        relative_floor: float = 0.4,
        min_coverage: float = 0.2,
        field_weights: Mapping[str, float] = FIELD_WEIGHTS,
        k1: float = 1.2,
        b: float = 0.75,
        cache: AnalysisCache | None = None,
    ) -> None:
        self.index = LexicalIndex(field_weights=field_weights, k1=k1, b=b, cache=cache)
        self.min_score = min_score
        # A memory that scores far below the best match shares only an incidental word with the
        # query; surfacing it costs context and attention for nothing.
        self.relative_floor = relative_floor
        self.min_coverage = min_coverage
        self._stored: StoredPostings | None = None

    def rank(
        self, query: str, candidates: Sequence[MemoryHeader], *, limit: int | None = None
    ) -> list[tuple[MemoryHeader, float]]:
        """Every candidate that shares a term with the query, best first (ties: newest first); only
        the best ``limit`` when given, which spares sorting a long tail on large stores."""
        return self.scored(query, candidates, limit=limit)

    def scored(
        self, query: str, candidates: Sequence[MemoryHeader], *, limit: int | None = None
    ) -> list[tuple[MemoryHeader, float]]:
        """The BM25 ranking alone, before any ordering: what the hybrid fuses."""
        self.index.sync(candidates)
        scores = self.index.score(query)
        by_path = self.index.headers
        if limit is not None and len(scores) > limit:
            best = heapq.nlargest(limit, scores, key=scores.__getitem__)
            ranked = [(by_path[path], scores[path]) for path in best]
        else:
            ranked = [(by_path[path], score) for path, score in scores.items()]
        ranked.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
        return ranked

    @staticmethod
    def _query_weights(query: str, index: _TermStats) -> dict[str, float]:
        """Each query term's share of the information: its idf, or that of the rarest word if unseen."""
        asked = set(tokenize(query))
        count = len(index)
        rarest = math.log(1.0 + (count - 0.5) / 1.5)  # the idf of a word only one memory holds
        return {term: index.idf(term) or (rarest / 2 if is_pair(term) else rarest) for term in asked}

    def admit(
        self, ranked: Sequence[tuple[MemoryHeader, float]], query: str | None = None, stats: _TermStats | None = None
    ) -> list[tuple[MemoryHeader, float]]:
        """The part of a ranking above the relevance floor: a positive score, at least
        ``relative_floor`` of the best match's, and (given the query) at least ``min_coverage``
        of the query's information matched."""
        floor = max(self.min_score, ranked[0][1] * self.relative_floor) if ranked else self.min_score
        kept = [(header, score) for header, score in ranked if score > self.min_score and score >= floor]
        if query is None or not self.min_coverage:
            return kept
        index: _TermStats = self.index if stats is None else stats
        weights = self._query_weights(query, index)
        return [(h, score) for h, score in kept if _covered(weights, index.terms_of(h.path)) >= self.min_coverage]

    # -- the whole store, ranked in the derived index ---------------------------------------------
    def stored(self, store: Any) -> StoredPostings | None:
        """The postings stored in ``store`` (a derived index) for this selector's ranking, or None
        when they cannot stand for it (other field weights or BM25 parameters)."""
        if (self.index.field_weights, self.index.k1, self.index.b) != (dict(FIELD_WEIGHTS), 1.2, 0.75):
            return None
        if not hasattr(store, "transact"):
            return None
        if self._stored is None or self._stored.host is not store:
            from memdir.recall.stored_lexical import StoredPostings

            self._stored = StoredPostings(store)
        return self._stored

    def rank_store(
        self, query: str, store: Any, *, limit: int, exclude: frozenset[str] = frozenset(), budget: int | None = None
    ) -> list[tuple[MemoryHeader, float]] | None:
        """The best ``limit`` memories of the whole store by BM25, best first, as :meth:`scored` orders
        them (the same scores when nothing is excluded); None when the
        stored postings are behind by more than ``budget`` or cannot stand for this ranking."""
        stored = self.stored(store)
        if stored is None or not stored.sync(budget=budget):
            return None
        return stored.best(stored.score(query), limit, exclude)

    def select_store(self, request: StoreRequest) -> StoreSelection | None:
        depth = max(50, 10 * request.limit)
        ranked = self.rank_store(
            request.query, request.store, limit=depth, exclude=request.exclude, budget=request.budget
        )
        if ranked is None:
            return None
        ranked = unexpired(ranked, request.now_s)
        admitted = {header.path for header, _ in self.admit(ranked, request.query, self._stored)}
        chosen = admitted_in_order(ranked, admitted)
        files = [header.filename for header in chosen if not is_tool_manual(header, request.recent_tools)]
        selection = Selection(files=tuple(files[: request.limit]), selector=self.name)
        return StoreSelection(selection, {header.filename: header for header, _ in ranked})

    def select(self, request: SelectionRequest) -> Selection:
        depth = max(50, 10 * request.limit)
        ranked = self.scored(request.query, request.candidates, limit=depth)
        admitted = {header.path for header, _ in self.admit(ranked, request.query)}
        chosen = admitted_in_order(ranked, admitted)
        files = [header.filename for header in chosen if not is_tool_manual(header, request.recent_tools)]
        return Selection(files=tuple(files[: request.limit]), selector=self.name)
