"""Near-duplicates: the existing memories that say nearly what a new one says.

Every write path (``memdir add``, MCP ``remember``, the memory tool's ``create``, the web view,
extraction, the dream, ``import``) asks this before saving, so that a fact is updated where it
already lives instead of piling up in a second file. The test is offline and cheap: the words of
the name, description and start of the body, numbers left out (a number is what an update
changes), weighted by how rare each word is in the store, and compared by weighted Jaccard
overlap. ``NEAR_FLOOR`` was calibrated on the labelled pairs of ``bench/recall_truth.py`` for a
precision of at least 0.9: a false alarm costs the writer a second look, a miss costs a duplicate.
A memory with the same name (case, spaces, ``-`` and ``_`` aside) is always near.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from memdir.model.analysis import tokenize
from memdir.store.scan import MemoryHeader

__all__ = ["NEAR_FLOOR", "Near", "Similarity", "memory_terms", "name_key", "near_memories"]

NEAR_FLOOR = 0.8
_DIGIT = re.compile(r"\d")
_BODY_CHARS = 600


def name_key(name: str) -> str:
    """A name as names are compared: case, spaces, ``-`` and ``_`` aside."""
    return re.sub(r"[\s_-]+", " ", name).strip().casefold()


class Near(NamedTuple):
    """An existing memory close to a new one, and how close (0 to 1)."""

    header: MemoryHeader
    score: float


_CACHE_LIMIT = 20_000  # a write checks every memory of the store; a long-lived server keeps their words
_cached: dict[tuple[str, float, int], frozenset[str]] = {}


def stored_terms(header: MemoryHeader) -> frozenset[str]:
    """The words a stored memory is compared by: name, description and the start of its body."""
    key = (header.path, header.mtime_ms, header.size)
    found = _cached.get(key)
    if found is None:
        found = memory_terms(header.name, header.description, header.preview)
        if len(_cached) >= _CACHE_LIMIT:
            _cached.clear()
        _cached[key] = found
    return found


def _words(terms: frozenset[str]) -> frozenset[str]:
    return frozenset(term for term in terms if not _DIGIT.search(term))


def memory_terms(name: str | None, description: str | None, body: str = "") -> frozenset[str]:
    """The words a memory not yet saved is compared by (as :func:`stored_terms` for a saved one)."""
    return _words(frozenset(tokenize(f"{name or ''}\n{description or ''}\n{body[:_BODY_CHARS]}")))


class Similarity:
    """Word overlap between memories, weighted by rarity in ``headers`` (the store)."""

    def __init__(self, headers: Sequence[MemoryHeader], *, floor: float = NEAR_FLOOR) -> None:
        self.headers = list(headers)
        self.floor = floor
        self.terms = [stored_terms(header) for header in self.headers]
        df: dict[str, int] = {}
        for terms in self.terms:
            for term in terms:
                df[term] = df.get(term, 0) + 1
        count = len(self.headers)
        self._idf = {term: math.log(1.0 + (count - seen + 0.5) / (seen + 0.5)) for term, seen in df.items()}
        # A word the store has never seen weighs as one a single memory holds: rarer would let one
        # new word outweigh a sentence of shared ones in a small store.
        self._unseen = math.log(1.0 + (count - 0.5) / 1.5)
        self._by_path = {header.path: i for i, header in enumerate(self.headers)}
        self._totals: list[float] | None = None

    def _total(self, i: int) -> float:
        totals = self._totals
        if totals is None:
            weight = self._weight
            totals = self._totals = [sum(weight(term) for term in terms) for terms in self.terms]
        return totals[i]

    def overlap_at(self, i: int, j: int, at_least: float = 0.0) -> float:
        """:meth:`overlap` of the memories at positions ``i`` and ``j``, or 0.0 when it is certainly
        below ``at_least``: judged first from the words they share and their whole weights (a
        few words instead of the union's hundred), the exact figure computed only near the floor."""
        common = self.terms[i] & self.terms[j]
        if not common:
            return 0.0
        shared = sum(self._weight(term) for term in common)
        union = self._total(i) + self._total(j) - shared
        if union > 0.0 and shared / union < at_least - 1e-9:
            return 0.0
        return self.overlap(self.terms[i], self.terms[j])

    def _weight(self, term: str) -> float:
        return self._idf.get(term, self._unseen)

    def overlap(self, a: frozenset[str], b: frozenset[str]) -> float:
        union = sum(self._weight(term) for term in a | b)
        return sum(self._weight(term) for term in a & b) / union if union else 0.0

    def _terms_of(self, header: MemoryHeader) -> frozenset[str]:
        i = self._by_path.get(header.path)
        return self.terms[i] if i is not None else stored_terms(header)

    def score(self, a: MemoryHeader, b: MemoryHeader) -> float:
        return self.overlap(self._terms_of(a), self._terms_of(b))

    def near(self, a: MemoryHeader, b: MemoryHeader) -> bool:
        return self.score(a, b) >= self.floor

    def near_ones(
        self, terms: frozenset[str], *, name: str | None = None, exclude: str | None = None, limit: int = 3
    ) -> list[Near]:
        """The stored memories at or above the floor for a memory with ``terms`` (and ``name``),
        closest first; ``exclude`` is the path of the memory itself (an update compares against the others)."""
        key = name_key(name) if name else None
        found = []
        for header, own in zip(self.headers, self.terms, strict=True):
            if header.path == exclude:
                continue
            score = 1.0 if key and header.name and name_key(header.name) == key else self.overlap(terms, own)
            if score >= self.floor:
                found.append(Near(header, score))
        found.sort(key=lambda near: (-near.score, -near.header.time_ms))
        return found[:limit]

    def candidates(self, floor: float, among: Sequence[int] | None = None) -> list[list[int]]:
        """For each memory (by position), the later ones whose overlap with it may reach ``floor``,
        ascending: every pair that does is among them, without comparing every pair (100,000
        memories are five billion pairs).

        Prefix filtering on both sides, with prefixes one word longer than needed (after the
        AllPairs, PPJoin and AdaptJoin joins). Memories are taken lightest first (by the weight of
        their words), each memory's words in one order for the whole store (rarest first). Two
        memories at ``floor`` or above share words weighing at least ``floor`` of the heavier one
        (``a``: ``t·Wa``) and ``2t / (1 + t)`` of the lighter (``b``). ``a`` is looked up by its
        probe prefix (its first words weighing more than ``(1 - t)·Wa + d``) among the lighter
        ones' index prefixes (more than ``(1 - 2t / (1 + t))·Wb + d``), ``d`` being the weight of
        the rarest word in the store (at most ``t·W``). Every word the two share before the end of
        the prefix that ends first lies in both, and the shared words after it weigh less than
        ``t·W - d`` of that memory, so the prefixes share more than ``d``: two words, or one very
        rare one. A memory lighter than ``t·Wa`` cannot reach ``a`` either. Indexing every word
        of every memory and pairing on one shared word instead made the pairs grow with the square
        of the store (1.8 million at 20,000 synthetic memories against 15,000 at 2,000).
        ``among``: only these memories (by position) are paired."""
        positions = range(len(self.terms)) if among is None else among
        weight = self._weight
        order = sorted(positions, key=lambda i: (self._total(i), i))
        heavier = floor  # share of a heavier memory's weight a qualifying pair shares
        lighter = 2.0 * floor / (1.0 + floor)  # and of a lighter one's
        rarest = self._unseen
        holders: dict[str, list[int]] = {}
        later: list[set[int]] = [set() for _ in self.terms]
        for i in order:
            total = self._total(i)
            lightest = floor * total * (1.0 - 1e-9)
            ordered = sorted(self.terms[i], key=lambda term: (-weight(term), term))
            extra = min(rarest, heavier * total) * (1.0 - 1e-6)
            reach = ((1.0 - heavier) * total + extra) * (1.0 + 1e-9)
            shared: dict[int, float] = {}
            seen = 0.0
            for term in ordered:
                if seen > reach:
                    break
                w = weight(term)
                for j in holders.get(term, ()):
                    if self._total(j) >= lightest:
                        shared[j] = shared.get(j, 0.0) + w
                seen += w
            for j, found in shared.items():
                # Each side's guaranteed share beyond its prefix: the smaller one must be exceeded.
                needed = min(extra, min(rarest, lighter * self._total(j)) * (1.0 - 1e-6)) * (1.0 - 1e-9)
                if found > needed:
                    later[min(i, j)].add(max(i, j))
            own = min(rarest, lighter * total) * (1.0 - 1e-6)
            reach = ((1.0 - lighter) * total + own) * (1.0 + 1e-9)
            seen = 0.0
            for term in ordered:
                if seen > reach:
                    break
                holders.setdefault(term, []).append(i)
                seen += weight(term)
        return [sorted(found) for found in later]

    def clusters(self) -> list[list[MemoryHeader]]:
        """Groups of stored memories that are near one another (each member near the first)."""
        taken = [False] * len(self.headers)
        groups: list[list[MemoryHeader]] = []
        near = self.candidates(self.floor)
        for i in range(len(self.headers)):
            if taken[i]:
                continue
            members = [i] + [j for j in near[i] if not taken[j] and self.overlap_at(i, j, self.floor) >= self.floor]
            if len(members) > 1:
                for j in members:
                    taken[j] = True
                groups.append([self.headers[j] for j in members])
        return groups


def near_memories(
    headers: Sequence[MemoryHeader],
    name: str | None,
    description: str | None,
    body: str = "",
    *,
    exclude: str | None = None,
    limit: int = 3,
) -> list[Near]:
    """The memories of a store (its ``headers``) that say nearly what a new memory would."""
    if not headers:
        return []
    similarity = Similarity(headers)
    return similarity.near_ones(memory_terms(name, description, body), name=name, exclude=exclude, limit=limit)
