"""A fusion learned to rank: a handful of per-candidate features, weighed by weights shipped as data.

The hand-set hybrid adds two numbers (BM25 over the best BM25, half the cosine's lift over the
store's mean over the best lift). What it cannot weigh is *how* a memory matches: whether the query's
rare words are in the memory's description (what it is about) or only in its name or body (who
said it, when), how much of the query's information it holds at all, and how far down each ranker
puts it. :func:`candidate_features` computes those for the candidates of one query, the same way
over a list of headers and over the whole stored index; :class:`LinearRanker` weighs them.

The weights are a linear model trained offline with a pairwise (lambdarank) loss, L2-regularised,
on LoCoMo conversations, and kept only where leave-conversations-out cross-validation says it beats
the hand-set fusion (``bench/train_ranker.py``; docs/recall.md has the figures). They are a few
numbers in ``ranker.json`` beside this module: evaluating them is a dot product, so recall needs no
library for it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Protocol

from memdir.errors import ConfigError
from memdir.model.analysis import is_pair, tokenize
from memdir.recall.currency import subject_terms
from memdir.store.scan import MemoryHeader

__all__ = ["FEATURES", "LinearRanker", "candidate_features", "load_ranker"]

# Every feature a model may use, in the order candidate_features computes them:
# - lexical: the BM25 score over the query's best (0 when the memory matched no word);
# - embedding: the cosine's lift over the store's mean similarity, over the best lift;
# - coverage: the share of the query's information (idf mass) the memory's words hold;
# - described: the same share held by its description alone (what the memory is about);
# - lexical_place, embedding_place: 1 / (1 + place) in each ranker's list (0 when not in it).
FEATURES = ("lexical", "embedding", "coverage", "described", "lexical_place", "embedding_place")


class TermStats(Protocol):
    """What the coverage features read: the in-memory index or the stored postings."""

    def __len__(self) -> int: ...

    def idf(self, term: str) -> float: ...

    def terms_of(self, path: str) -> Mapping[str, float]: ...


class Similar(Protocol):
    """What the embedding features read of one query's similarities (headers or the stored matrix)."""

    def __len__(self) -> int: ...

    @property
    def mean(self) -> float: ...

    @property
    def best(self) -> float: ...

    def head(self, count: int) -> list[tuple[MemoryHeader, float]]: ...

    def get(self, path: str) -> float | None: ...


def query_weights(query: str, stats: TermStats) -> dict[str, float]:
    """Each query term's share of the information: its idf, or that of the rarest word if unseen
    (half of it for an unseen pair of CJK characters, mostly the seam between two words)."""
    count = len(stats)
    rarest = math.log(1.0 + (count - 0.5) / 1.5)
    return {term: stats.idf(term) or (rarest / 2 if is_pair(term) else rarest) for term in set(tokenize(query))}


def _share(weights: Mapping[str, float], total: float, held: Mapping[str, float] | frozenset[str]) -> float:
    return sum(weight for term, weight in weights.items() if term in held) / total if total else 0.0


def candidate_features(
    query: str,
    lexical: Sequence[tuple[MemoryHeader, float]],
    embedded: Similar | None,
    stats: TermStats,
    *,
    depth: int = 100,
) -> tuple[list[MemoryHeader], list[list[float]]]:
    """The candidates of one query (the lexical matches, then the embedding's best ``depth`` not
    among them) and each one's :data:`FEATURES`. Coverage is read only for the lexical matches
    (a memory outside them holds none of the query's words, or too little to be ranked); the stored
    postings know no more, so both paths give the same numbers."""
    headers: list[MemoryHeader] = []
    rows: list[list[float]] = []
    places: dict[str, int] = {}
    weights = query_weights(query, stats)
    total = sum(weights.values())
    top = max((score for _, score in lexical), default=0.0)
    for place, (header, score) in enumerate(lexical):
        if header.path in places:
            continue
        places[header.path] = len(rows)
        headers.append(header)
        coverage = _share(weights, total, stats.terms_of(header.path))
        described = _share(weights, total, subject_terms(header))
        rows.append([score / top if top > 0.0 else 0.0, 0.0, coverage, described, 1.0 / (1.0 + place), 0.0])
    if embedded is None or not len(embedded):
        return headers, rows
    mean = embedded.mean
    spread = embedded.best - mean
    if spread <= 0.0:
        return headers, rows
    lifted: set[str] = set()
    for place, (header, similarity) in enumerate(embedded.head(depth)):
        lifted.add(header.path)
        at = places.get(header.path)
        if at is None:
            places[header.path] = at = len(rows)
            headers.append(header)
            rows.append([0.0, 0.0, 0.0, _share(weights, total, subject_terms(header)), 0.0, 0.0])
        rows[at][1] = (similarity - mean) / spread
        rows[at][5] = 1.0 / (1.0 + place)
    for header in headers:
        if header.path not in lifted:
            cosine = embedded.get(header.path)
            if cosine is not None:
                rows[places[header.path]][1] = (cosine - mean) / spread
    return headers, rows


@dataclass(frozen=True)
class LinearRanker:
    """A score per candidate: the weighted sum of its features (those this model names)."""

    name: str
    features: tuple[str, ...]
    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        unknown = [feature for feature in self.features if feature not in FEATURES]
        if unknown or len(self.features) != len(self.weights):
            raise ConfigError(f"ranker {self.name!r}: unknown features {unknown} or weights of another length")

    def scores(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """Each row's score (rows in :data:`FEATURES` order)."""
        at = [FEATURES.index(feature) for feature in self.features]
        pairs = list(zip(at, self.weights, strict=True))
        return [math.fsum(weight * row[i] for i, weight in pairs) for row in rows]


_LOADED: dict[str, LinearRanker] = {}


def load_ranker(name: str) -> LinearRanker:
    """The shipped model ``name`` (``hybrid`` or ``lexical``) from ``ranker.json``."""
    found = _LOADED.get(name)
    if found is None:
        text = resources.files("memdir.recall").joinpath("ranker.json").read_text(encoding="utf-8")
        models = json.loads(text)["models"]
        if name not in models:
            raise ConfigError(f"no learned ranking named {name!r}; shipped: {', '.join(sorted(models))}")
        model = models[name]
        found = _LOADED[name] = LinearRanker(name, tuple(model["features"]), tuple(float(w) for w in model["weights"]))
    return found
