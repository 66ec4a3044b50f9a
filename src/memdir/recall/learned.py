"""Rankings learned to rank: a handful of per-candidate features, weighed by weights shipped as data.

The hand-set rankings weigh one or two numbers: BM25 over the best BM25, and in the hybrid half the
cosine's lift over the store's mean over the best lift. :func:`candidate_features` computes those
and a few more for the candidates of one query, the same way over a list of headers and over the
whole stored index: how much of the query's information a memory (or its description alone) holds,
how far down each ranker puts it, and whether it was written in the same sitting as the best match.
:class:`LinearRanker` weighs them. Of these, only the sitting earned a place on conversations the
models were not trained on: what was saved together with the best match is often the rest of the
same story, where the words of the question are not.

The weights are linear models trained offline with a pairwise (lambdarank) loss, L2-regularised,
on LoCoMo conversations, each kept only where leave-one-conversation-out cross-validation says it
beats the hand-set ranking, with the fewest features that do (``bench/train_ranker.py``;
docs/recall.md has the figures). They are a few numbers in ``ranker.json`` beside this module:
evaluating them is a dot product, so recall needs no library for it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple, Protocol

from memdir.errors import ConfigError
from memdir.model.analysis import is_pair, tokenize
from memdir.recall.words import subject_terms
from memdir.store.scan import MemoryHeader

__all__ = ["FEATURES", "LinearRanker", "candidate_features", "load_ranker"]

# Every feature a model may use, in the order candidate_features computes them:
# - lexical: the BM25 score over the query's best (0 when the memory matched no word);
# - embedding: the cosine's lift over the store's mean similarity, over the best lift;
# - coverage: the share of the query's information (idf mass) the memory's words hold;
# - described: the same share held by its description alone (what the memory is about);
# - lexical_place, embedding_place: 1 / (1 + place) in each ranker's list (0 when not in it);
# - beside_best: 1 when the memory was written within BESIDE_MS of the best candidate other than
#   itself (the best lexical match, else the embedding's best; for that one, the second): what was
#   saved in the same sitting as the best match is often the rest of the same story.
FEATURES = ("lexical", "embedding", "coverage", "described", "lexical_place", "embedding_place", "beside_best")
BESIDE_MS = 3_600_000.0


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
    needs: Collection[str] = FEATURES,
) -> tuple[list[MemoryHeader], list[list[float]]]:
    """The candidates of one query (the lexical matches, then the embedding's best ``depth`` not
    among them) and each one's :data:`FEATURES` (those not in ``needs`` left at 0, so a model that
    does not read the words pays nothing for them). Coverage is read only for the lexical matches
    (a memory outside them holds none of the query's words, or too little to be ranked); the stored
    postings know no more, so both paths give the same numbers."""
    headers: list[MemoryHeader] = []
    rows: list[list[float]] = []
    places: dict[str, int] = {}
    words = "coverage" in needs or "described" in needs
    weights = query_weights(query, stats) if words else {}
    total = sum(weights.values())

    def described(header: MemoryHeader) -> float:
        return _share(weights, total, subject_terms(header)) if "described" in needs else 0.0

    top = max((score for _, score in lexical), default=0.0)
    for place, (header, score) in enumerate(lexical):
        if header.path in places:
            continue
        places[header.path] = len(rows)
        headers.append(header)
        coverage = _share(weights, total, stats.terms_of(header.path)) if "coverage" in needs else 0.0
        lifted = score / top if top > 0.0 else 0.0
        rows.append([lifted, 0.0, coverage, described(header), 1.0 / (1.0 + place), 0.0, 0.0])
    mean = embedded.mean if embedded is not None and len(embedded) else 0.0
    spread = embedded.best - mean if embedded is not None and len(embedded) else 0.0
    if embedded is None or spread <= 0.0:
        return headers, _beside_best(headers, rows)
    seen: set[str] = set()
    for place, (header, similarity) in enumerate(embedded.head(depth)):
        seen.add(header.path)
        at = places.get(header.path)
        if at is None:
            places[header.path] = at = len(rows)
            headers.append(header)
            rows.append([0.0, 0.0, 0.0, described(header), 0.0, 0.0, 0.0])
        rows[at][1] = (similarity - mean) / spread
        rows[at][5] = 1.0 / (1.0 + place)
    for header in headers:
        if header.path not in seen:
            cosine = embedded.get(header.path)
            if cosine is not None:
                rows[places[header.path]][1] = (cosine - mean) / spread
    return headers, _beside_best(headers, rows)


def _beside_best(headers: Sequence[MemoryHeader], rows: list[list[float]]) -> list[list[float]]:
    """Each candidate's ``beside_best``: written within :data:`BESIDE_MS` of the best candidate other
    than itself (the best one is compared with the second). Every candidate of a store written at one
    time (a checkout, an import) gets the same 1, so the feature then changes no order."""
    if len(headers) > 1:
        at = FEATURES.index("beside_best")
        best, second = headers[0].time_ms, headers[1].time_ms
        for i, (header, row) in enumerate(zip(headers, rows, strict=True)):
            row[at] = 1.0 if abs(header.time_ms - (second if i == 0 else best)) < BESIDE_MS else 0.0
    return rows


class LinearRanker(NamedTuple):
    """A score per candidate: the weighted sum of its features (those this model names).

    A NamedTuple, not a dataclass: the prompt hook ranks with it and imports no ``dataclasses``."""

    name: str
    features: tuple[str, ...]
    weights: tuple[float, ...]

    def checked(self) -> LinearRanker:
        """This model, or a clear error when it names a feature that does not exist."""
        unknown = [feature for feature in self.features if feature not in FEATURES]
        if unknown or len(self.features) != len(self.weights):
            raise ConfigError(f"ranker {self.name!r}: unknown features {unknown} or weights of another length")
        return self

    def scores(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """Each row's score (rows in :data:`FEATURES` order)."""
        at = [FEATURES.index(feature) for feature in self.features]
        pairs = list(zip(at, self.weights, strict=True))
        return [math.fsum(weight * row[i] for i, weight in pairs) for row in rows]

    def rank(
        self,
        query: str,
        lexical: Sequence[tuple[MemoryHeader, float]],
        embedded: Similar | None,
        stats: TermStats,
        *,
        depth: int = 100,
    ) -> list[tuple[MemoryHeader, float]]:
        """The candidates by this model's score, best first (ties: newest, then by file name)."""
        headers, rows = candidate_features(query, lexical, embedded, stats, depth=depth, needs=self.features)
        ranked = list(zip(headers, self.scores(rows), strict=True))
        ranked.sort(key=lambda item: (-item[1], -item[0].mtime_ms, item[0].filename))
        return ranked


# Package data beside this module (read with open(): importlib.resources would bring pathlib onto
# the prompt hook's path).
MODEL_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ranker.json")
_LOADED: dict[str, LinearRanker] = {}


def load_ranker(name: str) -> LinearRanker:
    """The shipped model ``name`` (``hybrid`` or ``lexical``) from ``ranker.json``."""
    found = _LOADED.get(name)
    if found is None:
        with open(MODEL_FILE, encoding="utf-8") as handle:
            models = json.load(handle)["models"]
        if name not in models:
            raise ConfigError(f"no learned ranking named {name!r}; shipped: {', '.join(sorted(models))}")
        model = models[name]
        weights = tuple(float(w) for w in model["weights"])
        found = _LOADED[name] = LinearRanker(name, tuple(model["features"]), weights).checked()
    return found
