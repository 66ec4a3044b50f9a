"""Offline lexical ranking: BM25 over a memory's name, description, type and the start of its body.

This is what every user gets without a model, so it runs in well under a millisecond per
hundred memories and keeps its per-document work in a cache keyed by (path, mtime, size): a
warm query touches only the postings of its own terms.
"""

from __future__ import annotations

import json
from _thread import allocate_lock  # threading's Lock itself, without importing threading (1 ms a hook)
from collections.abc import Mapping, Sequence
from sys import intern
from typing import NamedTuple, Protocol

from memdir.model.analysis import ANALYSIS_FORMAT, tokenize
from memdir.recall import bm25
from memdir.recall.bm25 import DEFAULT_PARAMS, LengthNorms, Params
from memdir.recall.selector_protocol import Query
from memdir.store.scan import MemoryHeader, same_headers

__all__ = [
    "Analysis",
    "AnalysisCache",
    "LexicalIndex",
    "analyse",
    "analysis_version",
    "decode_analysis",
    "encode_analysis",
]

_BODY_CHARS = 1500
_FLOATS: dict[float, float] = {}


class Analysis(NamedTuple):
    """One memory's analysis, with the (mtime, size) it was made from."""

    key: tuple[float, int]
    terms: Mapping[str, float]  # field-weighted term frequency
    length: float  # field-weighted length


class AnalysisCache(Protocol):
    """Stored analyses (weighted terms and length) by memory path; the derived index implements it.

    A process that starts cold (every hook invocation) would otherwise tokenise and stem the
    text of every memory before its first ranking: seconds for tens of thousands of memories.
    """

    def get_analyses(self, paths: Sequence[str], version: str) -> Mapping[str, tuple[float, int, str]]:
        """path -> (mtime_ms, size, payload) for the paths that have an analysis of ``version``."""

    def put_analyses(self, items: Mapping[str, tuple[float, int, str]], version: str) -> None: ...


# Bump when the payload format changes (the text analysis has its own ANALYSIS_FORMAT): stored
# analyses of another version are ignored.
_PAYLOAD_FORMAT = "1"
# Below this many memories to analyse, asking the cache costs about what it saves.
_CACHE_MIN_DOCS = 64
_CACHE_BATCH = 2000
# From this many stored analyses on, their terms are interned (see decode_analysis).
_SHARE_MIN_DOCS = 2000


def analysis_version(weights: Mapping[str, float]) -> str:
    """What an analysis depends on: the tokeniser's format, the body cut and the field weights."""
    fields = ",".join(f"{name}={weights[name]!r}" for name in sorted(weights))
    return f"{_PAYLOAD_FORMAT}.{ANALYSIS_FORMAT};{_BODY_CHARS};{fields}"


def encode_analysis(doc: Analysis) -> str:
    """``[length, "term term ...", "code code ...", [weight, ...]]``: the terms in one string and
    their weights as codes into a short table, so that decoding is a few C-level passes."""
    table: dict[float, int] = {}
    codes = [str(table.setdefault(weight, len(table))) for weight in doc.terms.values()]
    return json.dumps([doc.length, " ".join(doc.terms), " ".join(codes), list(table)], separators=(",", ":"))


def decode_analysis(payload: str, key: tuple[float, int], *, share: bool = True) -> Analysis | None:
    """A stored analysis, or None when it is not one this version wrote (the memory is analysed anew).

    ``share`` makes each term one string object across the index (``sys.intern``): a large store
    repeats a few thousand words, and a string per occurrence was most of its memory. A small one
    (a hook's 200 memories) saves a megabyte at most and spends a third of the decoding on it."""
    try:
        length, words, codes, table = json.loads(payload)
        weights = [_FLOATS.setdefault(float(value), float(value)) for value in table]
        terms: dict[str, float] = {}
        if words:
            coded = map(weights.__getitem__, map(int, codes.split(" ")))
            names = words.split(" ")
            terms = dict(zip(map(intern, names) if share else names, coded, strict=True))
    except (ValueError, TypeError, IndexError, AttributeError):
        return None
    return Analysis(key=key, terms=terms, length=float(length))


def analyse(header: MemoryHeader, weights: Mapping[str, float]) -> Analysis:
    """One memory's analysis: its name (else its file's), description, type and the start of its
    body, each field's terms counted with that field's weight."""
    fields = {
        "name": header.name or header.filename.rsplit("/", 1)[-1].removesuffix(".md").replace("_", " "),
        "description": header.description or "",
        "type": header.type.value if header.type is not None else "",
        "body": header.preview[:_BODY_CHARS],
    }
    weighted: dict[str, float] = {}
    length = 0.0
    for field, text in fields.items():
        weight = weights.get(field, 0.0)
        if not weight:
            continue
        terms = tokenize(text)
        length += weight * float(len(terms))
        for term in terms:
            weighted[term] = weighted.get(term, 0.0) + weight
    # One object per distinct term (tokenize interns them) and per distinct weight across the
    # whole index: a store's documents repeat the same few thousand words and the same few sums
    # of field weights, and a separate string and float for each occurrence was most of the
    # index's memory (about 150 MB of 220 at 20,000 memories).
    for term, value in weighted.items():
        weighted[term] = _FLOATS.setdefault(value, value)
    return Analysis(key=(header.mtime_ms, header.size), terms=weighted, length=length)


class LexicalIndex:
    """A BM25F-style index over memory headers, rebuilt incrementally as headers change; it scores
    with :mod:`memdir.recall.bm25` and meets its :class:`~memdir.recall.bm25.TermStats`."""

    def __init__(self, *, params: Params = DEFAULT_PARAMS, cache: AnalysisCache | None = None) -> None:
        self.params = params
        self.field_weights = dict(params.field_weights)
        self.cache = cache
        self.version = analysis_version(self.field_weights)
        self._docs: dict[str, Analysis] = {}
        # Survives removal, so a memory that leaves and returns is not re-analysed.
        self._analysed: dict[str, Analysis] = {}
        self._postings: dict[str, dict[str, float]] = {}
        # After a first sync the postings are built per term, on demand, until a second query or a
        # change: a hook process asks one query, and building the postings of every term of every
        # memory cost it more than the query itself.
        self._lazy = False
        self._scored = False
        self._total_length = 0.0
        self._held: list[MemoryHeader] = []
        self.headers: dict[str, MemoryHeader] = {}  # path -> the header now indexed
        self._norm_cache: LengthNorms[str] | None = None
        self._lock = allocate_lock()

    def __len__(self) -> int:
        return len(self._docs)

    def sync(self, headers: Sequence[MemoryHeader]) -> None:
        """Make the index hold exactly ``headers``; unchanged documents are not re-analysed.

        Headers are frozen values, so headers equal to last time's mean the same documents.
        """
        with self._lock:
            if same_headers(headers, self._held):
                return
            current = list(headers)
            if self.cache is not None:
                self._load_analyses(current)
            if not self._docs:
                self._postings, self._lazy, self._scored = {}, True, False
            else:
                self._complete_postings()
            live = {header.path for header in current}
            for path in [p for p in self._docs if p not in live]:
                self._remove(path)
            for header in current:
                doc = self._docs.get(header.path)
                if doc is not None and doc.key == (header.mtime_ms, header.size):
                    continue
                if doc is not None:
                    self._remove(header.path)
                cached = self._analysed.get(header.path)
                if cached is None or cached.key != (header.mtime_ms, header.size):
                    cached = self._analysed[header.path] = analyse(header, self.field_weights)
                self._add(header.path, cached)
            if len(self._analysed) > 2 * len(self._docs) + 64:
                self._analysed = {path: doc for path, doc in self._analysed.items() if path in self._docs}
            self._held = current
            self.headers = {header.path: header for header in current}

    def _load_analyses(self, headers: Sequence[MemoryHeader]) -> None:
        """Fill the analysis cache in memory from the stored one, and store what had to be analysed."""
        assert self.cache is not None
        todo: dict[str, MemoryHeader] = {}
        for header in headers:
            key = (header.mtime_ms, header.size)
            indexed = self._docs.get(header.path)
            analysed = self._analysed.get(header.path)
            if (indexed is None or indexed.key != key) and (analysed is None or analysed.key != key):
                todo[header.path] = header
        if len(todo) < _CACHE_MIN_DOCS:
            return
        stored = self.cache.get_analyses(list(todo), self.version)
        share = len(todo) >= _SHARE_MIN_DOCS
        fresh: dict[str, tuple[float, int, str]] = {}
        for path, header in todo.items():
            key = (header.mtime_ms, header.size)
            found = stored.get(path)
            doc = None
            if found is not None and (found[0], found[1]) == key:
                doc = decode_analysis(found[2], key, share=share)
            if doc is None:
                doc = analyse(header, self.field_weights)
                fresh[path] = (header.mtime_ms, header.size, encode_analysis(doc))
                # Stored as it goes: a process stopped half-way (a hook past its timeout) leaves
                # its work for the next one instead of every process starting over.
                if len(fresh) >= _CACHE_BATCH:
                    self.cache.put_analyses(fresh, self.version)
                    fresh = {}
            self._analysed[path] = doc
        if fresh:
            self.cache.put_analyses(fresh, self.version)

    def _add(self, path: str, doc: Analysis) -> None:
        self._norm_cache = None
        self._docs[path] = doc
        self._total_length += doc.length
        if not self._lazy:
            self._post(path, doc)

    def _post(self, path: str, doc: Analysis) -> None:
        postings = self._postings
        for term, tf in doc.terms.items():
            posting = postings.get(term)
            if posting is None:
                posting = postings[term] = {}
            posting[path] = tf

    def _complete_postings(self) -> None:
        """Build every term's posting, in the order the documents were added (as :meth:`_add` does)."""
        if self._lazy:
            self._lazy = False
            self._postings = {}
            for path, doc in self._docs.items():
                self._post(path, doc)

    def _posting(self, term: str) -> Mapping[str, float]:
        """The documents holding ``term`` and its weighted frequency in each (empty: none)."""
        posting = self._postings.get(term)
        if posting is None and self._lazy:
            posting = {path: tf for path, doc in self._docs.items() if (tf := doc.terms.get(term)) is not None}
            self._postings[term] = posting
        return posting or {}

    def _remove(self, path: str) -> None:
        self._norm_cache = None
        doc = self._docs.pop(path)
        self._total_length -= doc.length
        for term in doc.terms:
            posting = self._postings.get(term)
            if posting is not None:
                posting.pop(path, None)
                if not posting:
                    del self._postings[term]

    def idf(self, term: str) -> float:
        with self._lock:
            count = len(self._docs)
            df = len(self._posting(term))
        return bm25.idf(count, df)

    def terms_of(self, path: str) -> Mapping[str, float]:
        doc = self._docs.get(path)
        return doc.terms if doc is not None else {}

    def _norms(self) -> LengthNorms[str]:
        """The documents' BM25 length norms, kept until the documents change."""
        if self._norm_cache is None:
            docs = self._docs
            average = bm25.average_length(self._total_length, len(docs))
            self._norm_cache = LengthNorms(lambda path: docs[path].length, average, self.params)
        return self._norm_cache

    def score(self, query: Query) -> dict[str, float]:
        """BM25 scores of the documents sharing a term with ``query`` (:func:`memdir.recall.bm25.scores`)."""
        with self._lock:
            count = len(self._docs)
            if not count or not query.terms:
                return {}
            if self._scored:
                self._complete_postings()  # a second query: this process keeps asking, so build them all
            self._scored = True
            postings = {term: posting for term in query.terms if (posting := self._posting(term))}
            return bm25.scores(postings, self._norms(), count, self.params.k1)
