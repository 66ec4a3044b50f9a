"""The lexical selector: BM25F over the memories' headers and the start of their bodies.

It needs no model and no network, so it is the default and the fallback of the model-backed
selector. The protocol it meets lives in :mod:`memdir.recall.selector_protocol`.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memdir.recall.bm25 import DEFAULT_PARAMS, Params, TermStats, query_weights
from memdir.recall.lexical import AnalysisCache, LexicalIndex
from memdir.recall.selector_protocol import (
    Query,
    Selection,
    SelectionRequest,
    StoreRequest,
    StoreSelection,
    selection_of,
    unexpired,
)
from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    from memdir.recall.stored_lexical import StoredPostings
    from memdir.store.ranked_store import RankedStore

__all__ = ["LexicalSelector"]


def _covered(weights: Mapping[str, float], terms: Mapping[str, float]) -> float:
    """The share of the query's information (``weights``, :func:`memdir.recall.bm25.query_weights`)
    that a memory's ``terms`` hold."""
    total = sum(weights.values())
    return sum(weight for term, weight in weights.items() if term in terms) / total if total else 0.0


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
        field_weights: Mapping[str, float] = DEFAULT_PARAMS.field_weights,
        k1: float = DEFAULT_PARAMS.k1,
        b: float = DEFAULT_PARAMS.b,
        cache: AnalysisCache | None = None,
    ) -> None:
        self.params = Params(k1=k1, b=b, field_weights=dict(field_weights))
        self.index = LexicalIndex(params=self.params, cache=cache)
        self.min_score = min_score
        # A memory that scores far below the best match shares only an incidental word with the
        # query; surfacing it costs context and attention for nothing.
        self.relative_floor = relative_floor
        self.min_coverage = min_coverage
        self._stored: StoredPostings | None = None

    def rank(
        self, query: str, candidates: Sequence[MemoryHeader], *, limit: int | None = None
    ) -> list[tuple[MemoryHeader, float]]:
        """Every candidate that shares a term with the query, best first by BM25 alone (ties:
        newest first), before any floor: what :meth:`select` admits from and the hybrid fuses. Only
        the best ``limit`` when given, which spares sorting a long tail on large stores."""
        self.index.sync(candidates)
        scores = self.index.score(Query(query))
        by_path = self.index.headers
        if limit is not None and len(scores) > limit:
            best = heapq.nlargest(limit, scores, key=scores.__getitem__)
            ranked = [(by_path[path], scores[path]) for path in best]
        else:
            ranked = [(by_path[path], score) for path, score in scores.items()]
        ranked.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
        return ranked

    def admit(
        self, ranked: Sequence[tuple[MemoryHeader, float]], query: str | None = None, stats: TermStats | None = None
    ) -> list[tuple[MemoryHeader, float]]:
        """The part of a ranking above the relevance floor: a positive score, at least
        ``relative_floor`` of the best match's, and (given the query) at least ``min_coverage``
        of the query's information matched, as ``stats`` (this selector's index by default) counts it."""
        floor = max(self.min_score, ranked[0][1] * self.relative_floor) if ranked else self.min_score
        kept = [(header, score) for header, score in ranked if score > self.min_score and score >= floor]
        if query is None or not self.min_coverage:
            return kept
        index: TermStats = self.index if stats is None else stats
        weights = query_weights(Query(query).terms, index)
        return [(h, score) for h, score in kept if _covered(weights, index.terms_of(h.path)) >= self.min_coverage]

    # -- the whole store, ranked in the derived index ---------------------------------------------
    def stored(self, store: RankedStore) -> StoredPostings:
        """The postings stored in ``store`` for this selector's ranking (built for its parameters)."""
        if self._stored is None or self._stored.host is not store:
            from memdir.recall.stored_lexical import StoredPostings

            self._stored = StoredPostings(store, params=self.params)
        return self._stored

    def rank_store(
        self,
        query: str,
        store: RankedStore,
        *,
        limit: int,
        exclude: frozenset[str] = frozenset(),
        budget: int | None = None,
    ) -> list[tuple[MemoryHeader, float]] | None:
        """The best ``limit`` memories of the whole store by BM25, best first, as :meth:`rank` orders
        them (the same scores when nothing is excluded); None when the stored postings are behind by
        more than ``budget``."""
        stored = self.stored(store)
        if not stored.sync(budget=budget):
            return None
        return stored.best(stored.score(Query(query)), limit, exclude)

    def select_store(self, request: StoreRequest) -> StoreSelection | None:
        query = Query(request.query)
        depth = max(50, 10 * request.limit)
        ranked = self.rank_store(query, request.store, limit=depth, exclude=request.exclude, budget=request.budget)
        if ranked is None:
            return None
        ranked = unexpired(ranked, request.now_s)
        admitted = (header for header, _ in self.admit(ranked, query, self._stored))
        selection = selection_of(admitted, request.recent_tools, request.limit, self.name)
        return StoreSelection(selection, {header.filename: header for header, _ in ranked})

    def select(self, request: SelectionRequest) -> Selection:
        query = Query(request.query)
        depth = max(50, 10 * request.limit)
        ranked = self.rank(query, request.candidates, limit=depth)
        admitted = (header for header, _ in self.admit(ranked, query))
        return selection_of(admitted, request.recent_tools, request.limit, self.name)
