"""The offline selectors by name, and the hybrid one: lexical ranking fused with embeddings.

Lexical ranking is exact about names, numbers and rare words; an embedding catches paraphrase.
The hybrid fuses the two rankings by reciprocal rank (each list contributes ``w / (k + rank)``),
which needs no calibration between a BM25 score and a cosine. The defaults (k = 20, embedding
weight 0.5) were chosen on two LoCoMo conversations and checked on three others: the lexical
ranking is the more reliable of the two, and a small k lets both rankers' heads decide. A memory is surfaced only when
one of the two rankers finds it relevant on its own terms (the lexical floor, or the similarity
floor), so a query about nothing in the store still surfaces nothing.

Without the ``embed`` extra the hybrid is the lexical selector, so every user gets the best
ranking their installation can do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memdir.errors import ConfigError
from memdir.recall.embedding import EmbeddingRanker, VectorCache, embedding_available, load_encoder
from memdir.recall.selectors import LexicalSelector, RankingSelector, Selection, SelectionRequest, is_tool_manual
from memdir.store.scan import MemoryHeader

__all__ = ["OFFLINE_SELECTORS", "HybridSelector", "offline_selector"]

OFFLINE_SELECTORS = ("offline", "lexical", "embedding", "hybrid")


class HybridSelector:
    """Reciprocal-rank fusion of the lexical ranking and, when available, an embedding ranking."""

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
    ) -> None:
        self.lexical = lexical or LexicalSelector()
        self.embedding = embedding
        self.rrf_k = rrf_k
        self.lexical_weight = lexical_weight
        self.embedding_weight = embedding_weight
        # Only the embedding ranker's head counts: its tail orders memories that share nothing with the query.
        self.embedding_depth = embedding_depth

    def _fuse(
        self, lexical: Sequence[tuple[MemoryHeader, float]], embedded: Sequence[tuple[MemoryHeader, float]]
    ) -> list[tuple[MemoryHeader, float]]:
        fused: dict[str, float] = {}
        by_path: dict[str, MemoryHeader] = {}
        for weight, ranking in ((self.lexical_weight, lexical), (self.embedding_weight, embedded)):
            for position, (header, _) in enumerate(ranking):
                fused[header.path] = fused.get(header.path, 0.0) + weight / (self.rrf_k + position + 1)
                by_path[header.path] = header
        out = [(by_path[path], score) for path, score in fused.items()]
        out.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
        return out

    def _embedded(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
        if self.embedding is None:
            return []
        return self.embedding.rank(query, candidates)[: self.embedding_depth]

    def rank(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]:
        """The fused ranking, best first; scores are fused reciprocal ranks."""
        lexical = self.lexical.rank(query, candidates)
        if self.embedding is None:
            return lexical
        return self._fuse(lexical, self._embedded(query, candidates))

    def select(self, request: SelectionRequest) -> Selection:
        lexical = self.lexical.rank(request.query, request.candidates, limit=max(100, 10 * request.limit))
        relevant = {header.path for header, _ in self.lexical.admit(lexical, request.query)}
        ranked = lexical
        if self.embedding is not None:
            embedded = self._embedded(request.query, request.candidates)
            floor = float(getattr(self.embedding, "min_similarity", 0.0))
            relevant.update(header.path for header, score in embedded if score >= floor)
            ranked = self._fuse(lexical, embedded)
        files = [
            header.filename
            for header, _ in ranked
            if header.path in relevant and not is_tool_manual(header, request.recent_tools)
        ]
        return Selection(files=tuple(files[: request.limit]), selector=self.name)


def offline_selector(
    name: str = "offline",
    *,
    model_path: str | None = None,
    cache: VectorCache | None = None,
    env: Mapping[str, str] | None = None,
) -> RankingSelector:
    """An offline selector by name: ``lexical``, ``embedding``, ``hybrid``, or ``offline`` (the best available).

    ``offline`` is the hybrid when the ``embed`` extra and a model are present, else the lexical
    selector; ``embedding`` and ``hybrid`` raise :class:`ConfigError` when they cannot load a model.
    ``cache`` is a vector cache (a :class:`memdir.store.index_db.MemoryIndex`) for the embeddings.
    """
    if name not in OFFLINE_SELECTORS:
        raise ConfigError(
            f"unknown offline selector {name!r}; choose one of {', '.join(OFFLINE_SELECTORS)}", rule="selector"
        )
    if name == "lexical":
        return LexicalSelector()
    if name == "offline" and not (model_path or embedding_available(env=env)):
        return LexicalSelector()
    ranker = EmbeddingRanker(load_encoder(model_path, env=env), cache=cache)
    if name == "embedding":
        return ranker
    return HybridSelector(embedding=ranker)
