"""BM25, written once: its parameters, the idf, the ranking loop and the query's weights.

Two indexes rank by it: :class:`~memdir.recall.lexical.LexicalIndex` (the memories' analyses in
this process) and :class:`~memdir.recall.stored_lexical.StoredPostings` (the postings kept in the
derived index, for a fresh process). Both hand :func:`scores` the postings of the query's terms
and their memories' length norms, so the two give the same numbers for the same store, and both
meet :class:`TermStats`, which is all the relevance floor reads of an index.

The parameters (:class:`Params`: ``k1`` 1.2, ``b`` 0.75 and the field weights) are one value. The
stored postings are saved with the parameters they were built for and score with those read back
(as bm25s saves its ``params.index.json``), so an index built for other field weights is rebuilt
rather than read with the wrong ones.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Generic, NamedTuple, Protocol, TypeVar

from memdir.model.analysis import is_pair

__all__ = [
    "COMMON_MIN_DOCS",
    "DEFAULT_PARAMS",
    "FIELD_WEIGHTS",
    "LengthNorms",
    "Params",
    "Posting",
    "TermStats",
    "average_length",
    "idf",
    "query_weights",
    "scores",
]

# Name and description are written to be matched against ("specific enough to judge relevance"),
# so they weigh more than body text, which is longer and noisier.
FIELD_WEIGHTS: Mapping[str, float] = {"name": 2.5, "description": 3.0, "type": 0.5, "body": 1.0}
# From this many memories on, a term held by more than half of them only adds to memories a rarer
# term matched (see :func:`scores`).
COMMON_MIN_DOCS = 100

_Key = TypeVar("_Key")


class Params(NamedTuple):
    """BM25F's parameters: term-frequency saturation ``k1``, length normalisation ``b``, and how
    much a word counts in each field of a memory (its analysis depends on these)."""

    k1: float = 1.2
    b: float = 0.75
    field_weights: Mapping[str, float] = FIELD_WEIGHTS

    def to_json(self) -> str:
        """The parameters as the stored postings save them (field weights in name order)."""
        weights = {name: self.field_weights[name] for name in sorted(self.field_weights)}
        return json.dumps({"k1": self.k1, "b": self.b, "field_weights": weights}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> Params | None:
        """Parameters saved by :meth:`to_json`; None for anything else (the postings are then rebuilt)."""
        try:
            saved = json.loads(text or "")
            weights = {str(name): float(value) for name, value in saved["field_weights"].items()}
            return cls(k1=float(saved["k1"]), b=float(saved["b"]), field_weights=weights)
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


DEFAULT_PARAMS = Params()


class Posting(Protocol[_Key]):
    """What :func:`scores` reads of one term's posting: how many memories hold the term, its
    frequency in one memory (None where it is absent), and every memory with its frequency. A
    dict is one; the stored postings pass their sorted arrays as they are read, without a dict."""

    def __len__(self) -> int: ...

    def get(self, key: _Key, /) -> float | None: ...

    def items(self) -> Iterable[tuple[_Key, float]]: ...


class TermStats(Protocol):
    """What the relevance floor reads of a lexical index: how many memories it holds, a term's
    idf, and the terms a memory holds (those of the last query at least) with their frequencies."""

    def __len__(self) -> int: ...

    def idf(self, term: str) -> float: ...

    def terms_of(self, path: str) -> Mapping[str, float]: ...


def idf(count: int, df: int) -> float:
    """BM25's idf of a term held by ``df`` of ``count`` memories, with Lucene's ``1 +`` so that a
    term in most memories still counts a little and never negatively; 0 for a term none holds."""
    return math.log(1.0 + (count - df + 0.5) / (df + 0.5)) if df else 0.0


def average_length(total: float, count: int) -> float:
    """The memories' mean field-weighted length (1 for an empty index, so nothing divides by 0)."""
    return (total / count if count else 0.0) or 1.0


class LengthNorms(dict[_Key, float], Generic[_Key]):
    """Each memory's length norm, ``k1 · (1 − b + b · length / average)``, computed the first time a
    posting asks for it: a query touches the memories that hold its terms, not every memory."""

    __slots__ = ("_average", "_b", "_k1", "_length")

    def __init__(self, length: Callable[[_Key], float], average: float, params: Params) -> None:
        super().__init__()
        self._length = length
        self._average = average
        self._k1, self._b = params.k1, params.b

    def __missing__(self, key: _Key) -> float:
        norm = self[key] = self._k1 * (1.0 - self._b + self._b * self._length(key) / self._average)
        return norm


def scores(
    postings: Mapping[str, Posting[_Key]], norms: Mapping[_Key, float], count: int, k1: float
) -> dict[_Key, float]:
    """BM25 scores of the memories holding the query's terms, from each term's posting (memory ->
    field-weighted frequency), given in the query's order.

    Terms are taken rarest first; a term found in more than half of the memories only adds to
    memories that a rarer term already matched (when one did, in a store of :data:`COMMON_MIN_DOCS`
    memories or more): sharing only such words is no evidence of relevance, and skipping their
    long postings keeps recall fast on large stores."""
    k1p1 = k1 + 1.0
    ordered = sorted(postings, key=lambda term: len(postings[term]))
    found: dict[_Key, float] = {}
    for term in ordered:
        posting = postings[term]
        df = len(posting)
        weight = idf(count, df)
        if found and 2 * df > count >= COMMON_MIN_DOCS:
            for key, value in found.items():
                tf = posting.get(key)
                if tf is not None:
                    found[key] = value + weight * tf * k1p1 / (tf + norms[key])
            continue
        get = found.get
        for key, tf in posting.items():
            found[key] = get(key, 0.0) + weight * tf * k1p1 / (tf + norms[key])
    return found


def query_weights(terms: Iterable[str], stats: TermStats) -> dict[str, float]:
    """Each query term's share of the query's information, as the relevance floor weighs it: its
    idf, or for a term no memory holds that of a term only one memory holds (half that for an
    unseen pair of Chinese, Japanese or Korean characters: most are the seam between two words)."""
    rarest = idf(len(stats), 1)
    return {term: stats.idf(term) or (rarest / 2 if is_pair(term) else rarest) for term in terms}
