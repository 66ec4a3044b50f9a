"""The offline selectors by name, and the hybrid one: lexical ranking fused with embeddings.

Lexical ranking is exact about names, numbers and rare words; an embedding catches paraphrase.
The hybrid adds the two scores after putting each on a scale of its own store: the BM25 score
divided by the best one, plus half the cosine's lift over the store's mean similarity, divided by
the best lift. Unlike reciprocal-rank fusion this keeps how far ahead a memory is, not just its
place: a memory that both rankers like, but neither puts first, beats one that only one ranker
puts first. Reciprocal-rank fusion (``fusion="rank"``: each list contributes ``w / (k + rank)``)
is still available. The default, ``fusion="learned"``, weighs the same two with whether a memory
was written in the same sitting as the best match, by weights learned to rank on LoCoMo
(:mod:`memdir.recall.learned`): on every conversation left out of its training it beat the
hand-set weights (``fusion="score"``, 1 and 0.5, chosen on two LoCoMo conversations and checked on
three others; docs/recall.md has the figures). A memory is surfaced only when
one of the two rankers finds it relevant on its own terms (the lexical floor, or the similarity
floor), so a query about nothing in the store still surfaces nothing.

The ``offline`` kind of :mod:`memdir.recall.registry` is this selector when the ``embed`` extra is
installed and the lexical one otherwise, so every user gets the best ranking their installation can do.
"""

from __future__ import annotations

from collections.abc import Sequence

from memdir.errors import ConfigError
from memdir.recall.embedding import (
    EmbeddingRanker,
    Similarities,
)
from memdir.recall.learned import LinearRanker, TermStats, load_ranker
from memdir.recall.learned import Similar as _Similar
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.selector_protocol import (
    RankingSelector,
    Selection,
    SelectionRequest,
    StoreRequest,
    StoreSelection,
    admitted_in_order,
    is_tool_manual,
    unexpired,
)
from memdir.store.scan import MemoryHeader

__all__ = ["HybridSelector"]


class HybridSelector:
    """The lexical ranking fused with, when available, an embedding ranking (by score or by rank)."""

    name = "hybrid"

    def __init__(
        self,
        lexical: LexicalSelector | None = None,
        embedding: RankingSelector | None = None,
        *,
        rrf_k: float = 20.0,
        lexical_weight: float = 1.0,
        embedding_weight: float = 0.5,
        embedding_depth: int = 100,
        fusion: str = "learned",
    ) -> None:
        if fusion not in ("score", "rank", "learned"):
            raise ConfigError(f"unknown fusion {fusion!r}; choose 'score', 'rank' or 'learned'", rule="selector")
        self.lexical = lexical or LexicalSelector()
        self.embedding = embedding
        self.rrf_k = rrf_k
        self.lexical_weight = lexical_weight
        self.embedding_weight = embedding_weight
        # Only the embedding ranker's head counts: its tail orders memories that share nothing with the query.
        self.embedding_depth = embedding_depth
        self.fusion = fusion

    def _fuse(
        self, query: str, lexical: Sequence[tuple[MemoryHeader, float]], embedded: _Similar, stats: TermStats
    ) -> list[tuple[MemoryHeader, float]]:
        if self.fusion != "rank":
            # The hand-set fusion is the linear model of the two lifted scores with the set weights:
            # BM25 over the best BM25, plus the cosine's lift over the store's mean over the best lift.
            hand_set = LinearRanker("score", ("lexical", "embedding"), (self.lexical_weight, self.embedding_weight))
            model = load_ranker("hybrid") if self.fusion == "learned" else hand_set
            return model.rank(query, lexical, embedded, stats, depth=self.embedding_depth)
        fused: dict[str, float] = {}
        by_path: dict[str, MemoryHeader] = {}
        for weight, ranking in (
            (self.lexical_weight, lexical),
            (self.embedding_weight, embedded.head(self.embedding_depth)),
        ):
            for position, (header, _) in enumerate(ranking):
                fused[header.path] = fused.get(header.path, 0.0) + weight / (self.rrf_k + position + 1)
                by_path[header.path] = header
        return _ordered(fused, by_path)

    def _embedded(self, query: str, candidates: Sequence[MemoryHeader]) -> Similarities | None:
        if self.embedding is None:
            return None
        if isinstance(self.embedding, EmbeddingRanker):
            return self.embedding.scores(query, candidates)
        return Similarities.from_ranking(self.embedding.rank(query, candidates))

    def rank(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
        """The fused ranking, best first; scores are the fused scores (or reciprocal ranks)."""
        lexical = self.lexical.scored(query, candidates)
        embedded = self._embedded(query, candidates) if candidates else None
        if embedded is None:
            return self.lexical.ordered(query, lexical)
        return self._fuse(query, lexical, embedded, self.lexical.index)

    def select(self, request: SelectionRequest) -> Selection:
        lexical = self.lexical.scored(request.query, request.candidates, limit=max(100, 10 * request.limit))
        relevant = {header.path for header, _ in self.lexical.admit(lexical, request.query)}
        ranked = self.lexical.ordered(request.query, lexical)
        embedded = self._embedded(request.query, request.candidates) if request.candidates else None
        if embedded is not None:
            floor = float(getattr(self.embedding, "min_similarity", 0.0))
            relevant.update(header.path for header in embedded.at_least(floor))
            ranked = self._fuse(request.query, lexical, embedded, self.lexical.index)
        chosen = admitted_in_order(ranked, relevant)
        files = [header.filename for header in chosen if not is_tool_manual(header, request.recent_tools)]
        return Selection(files=tuple(files[: request.limit]), selector=self.name)

    def select_store(self, request: StoreRequest) -> StoreSelection | None:
        """:meth:`select` over the whole store: BM25 from the stored postings, similarities from the
        stored matrix (:mod:`memdir.recall.stored_vectors`), headers read for the best only. The
        store's mean similarity counts every memory, as the idf does (surfaced and expired ones too)."""
        ranker = self.embedding if isinstance(self.embedding, EmbeddingRanker) else None
        if self.embedding is not None and ranker is None:
            return None  # a ranker without a stored form ranks the headers
        lexical = self.lexical.rank_store(
            request.query,
            request.store,
            limit=max(100, 10 * request.limit),
            exclude=request.exclude,
            budget=request.budget,
        )
        if lexical is None:
            return None
        lexical = unexpired(lexical, request.now_s)
        postings = self.lexical.stored(request.store)
        relevant = {header.path for header, _ in self.lexical.admit(lexical, request.query, postings)}
        ranked = self.lexical.ordered(request.query, lexical, postings)
        embedded = None if ranker is None else ranker.store_scores(request.query, request.store, budget=request.budget)
        if embedded is not None and ranker is not None and postings is not None:
            embedded.exclude = request.exclude
            embedded.get_many(postings.row_ids())
            ranked = unexpired(self._fuse(request.query, lexical, embedded, postings), request.now_s)
            relevant.update(embedded.paths_at_least(ranker.min_similarity))
        chosen = admitted_in_order(ranked, relevant)
        files = [header.filename for header in chosen if not is_tool_manual(header, request.recent_tools)]
        selection = Selection(files=tuple(files[: request.limit]), selector=self.name)
        return StoreSelection(selection, {header.filename: header for header, _ in ranked})


def _ordered(fused: dict[str, float], by_path: dict[str, MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
    out = [(by_path[path], score) for path, score in fused.items()]
    out.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
    return out
