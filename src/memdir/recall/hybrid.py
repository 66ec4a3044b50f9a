"""The offline selectors by name, and the hybrid one: lexical ranking fused with embeddings.

Lexical ranking is exact about names, numbers and rare words; an embedding catches paraphrase.
The hybrid adds the two scores after putting each on a scale of its own store: the BM25 score
divided by the best one, plus half the cosine's lift over the candidates' mean similarity, divided
by the best lift. Unlike reciprocal-rank fusion this keeps how far ahead a memory is, not just its
place: a memory that both rankers like, but neither puts first, beats one that only one ranker
puts first. The weights (1 and 0.5) were chosen on two LoCoMo conversations and checked on three
others; weights learned to rank, with whether a memory was written in the same sitting as the best
match, did better on LoCoMo left one conversation out but not on a held-out set of coding sessions,
and were removed (docs/recall.md has the figures). A memory is surfaced only when one of the two
rankers finds it relevant on its own terms (the lexical floor, or the similarity floor), so a query
about nothing in the store still surfaces nothing.

The ``offline`` kind of :mod:`memdir.recall.registry` is this selector when the ``embed`` extra is
installed and the lexical one otherwise, so every user gets the best ranking their installation can do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memdir.recall.embedding import (
    EmbeddingRanker,
    Similarities,
)
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.selector_protocol import (
    Query,
    RankingSelector,
    Selection,
    SelectionRequest,
    StoreRequest,
    StoreSelection,
    admitted_in_order,
    selection_of,
    unexpired,
)
from memdir.store.scan import MemoryHeader

__all__ = ["HybridSelector"]


class _Similar(Protocol):
    """One query's similarities, over headers or the stored matrix (:mod:`memdir.recall.embedding`)."""

    def __len__(self) -> int: ...

    @property
    def mean(self) -> float: ...

    @property
    def best(self) -> float: ...

    def head(self, count: int) -> list[tuple[MemoryHeader, float]]: ...

    def get(self, path: str) -> float | None: ...


class HybridSelector:
    """The lexical ranking fused with, when available, an embedding ranking, by score."""

    name = "hybrid"

    def __init__(
        self,
        lexical: LexicalSelector | None = None,
        embedding: RankingSelector | None = None,
        *,
        lexical_weight: float = 1.0,
        embedding_weight: float = 0.5,
        embedding_depth: int = 100,
    ) -> None:
        self.lexical = lexical or LexicalSelector()
        self.embedding = embedding
        self.lexical_weight = lexical_weight
        self.embedding_weight = embedding_weight
        # Only the embedding ranker's head counts: its tail orders memories that share nothing with the query.
        self.embedding_depth = embedding_depth

    def _fuse(
        self, lexical: Sequence[tuple[MemoryHeader, float]], embedded: _Similar
    ) -> list[tuple[MemoryHeader, float]]:
        """The lexical matches and the embedding's best, each scored ``lexical_weight`` × its BM25
        over the best BM25 plus ``embedding_weight`` × its cosine's lift over the mean, over the
        best lift (a lexical match below the embedding's best still gets its lift)."""
        top = max((score for _, score in lexical), default=0.0)
        by_path: dict[str, MemoryHeader] = {}
        fused: dict[str, float] = {}
        for header, score in lexical:
            if header.path not in fused:
                by_path[header.path] = header
                fused[header.path] = self.lexical_weight * (score / top if top > 0.0 else 0.0)
        mean = embedded.mean if len(embedded) else 0.0
        spread = embedded.best - mean if len(embedded) else 0.0
        if spread > 0.0:
            lifted: dict[str, float] = {}
            for header, similarity in embedded.head(self.embedding_depth):
                by_path.setdefault(header.path, header)
                lifted[header.path] = (similarity - mean) / spread
            for path in fused:
                if path not in lifted and (cosine := embedded.get(path)) is not None:
                    lifted[path] = (cosine - mean) / spread
            for path, lift in lifted.items():
                fused[path] = fused.get(path, 0.0) + self.embedding_weight * lift
        return _ordered(fused, by_path)

    def _embedded(self, query: str, candidates: Sequence[MemoryHeader]) -> Similarities | None:
        if self.embedding is None:
            return None
        if isinstance(self.embedding, EmbeddingRanker):
            return self.embedding.scores(query, candidates)
        return Similarities.from_ranking(self.embedding.rank(query, candidates))

    def rank(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
        """The fused ranking, best first, with the fused scores."""
        query = Query(query)
        lexical = self.lexical.rank(query, candidates)
        embedded = self._embedded(query, candidates) if candidates else None
        return lexical if embedded is None else self._fuse(lexical, embedded)

    def select(self, request: SelectionRequest) -> Selection:
        query = Query(request.query)
        lexical = self.lexical.rank(query, request.candidates, limit=max(100, 10 * request.limit))
        relevant = {header.path for header, _ in self.lexical.admit(lexical, query)}
        ranked = lexical
        embedded = self._embedded(query, request.candidates) if request.candidates else None
        if embedded is not None:
            floor = float(getattr(self.embedding, "min_similarity", 0.0))
            relevant.update(header.path for header in embedded.at_least(floor))
            ranked = self._fuse(lexical, embedded)
        return selection_of(admitted_in_order(ranked, relevant), request.recent_tools, request.limit, self.name)

    def select_store(self, request: StoreRequest) -> StoreSelection | None:
        """:meth:`select` over the whole store: BM25 from the stored postings, similarities from the
        stored matrix (:mod:`memdir.recall.stored_vectors`), headers read for the best only. The
        store's mean similarity counts every memory, as the idf does (surfaced and expired ones too)."""
        ranker = self.embedding if isinstance(self.embedding, EmbeddingRanker) else None
        if self.embedding is not None and ranker is None:
            return None  # a ranker without a stored form ranks the headers
        query = Query(request.query)
        depth = max(100, 10 * request.limit)
        lexical = self.lexical.rank_store(
            query, request.store, limit=depth, exclude=request.exclude, budget=request.budget
        )
        if lexical is None:
            return None
        lexical = unexpired(lexical, request.now_s)
        postings = self.lexical.stored(request.store)
        relevant = {header.path for header, _ in self.lexical.admit(lexical, query, postings)}
        ranked = lexical
        embedded = None if ranker is None else ranker.store_scores(query, request.store, budget=request.budget)
        if embedded is not None and ranker is not None:
            embedded.exclude = request.exclude
            embedded.get_many(postings.row_ids())
            ranked = unexpired(self._fuse(lexical, embedded), request.now_s)
            relevant.update(embedded.paths_at_least(ranker.min_similarity))
        selection = selection_of(admitted_in_order(ranked, relevant), request.recent_tools, request.limit, self.name)
        return StoreSelection(selection, {header.filename: header for header, _ in ranked})


def _ordered(fused: dict[str, float], by_path: dict[str, MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
    out = [(by_path[path], score) for path, score in fused.items()]
    out.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
    return out
