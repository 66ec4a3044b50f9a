"""The newer memory that carries a surfaced one's old value: "Dana is on call for atlas" and, later,
"Dana swapped shifts, Kenji has the atlas pager".

The time-aware stage (:mod:`memdir.recall.currency`) finds a fact's versions by the question's
words, so an update worded apart from the question ("pager" for "on call") ranks far down and the
stale version is surfaced alone. What ties such an update to the memory it replaces is often a word
the two share and nothing else in the store holds: the old value or the person it names, carried
into the update ("Dana", "instead of 15 minutes", "之前是140毫秒"). So for each of the first
``SUCCESSOR_PLACES`` memories of a ranking, the newest memory of the same type among the first
``SUCCESSOR_POOL`` that shares with it a word at most ``VALUE_HOLDERS`` memories of the whole store
hold (not a word of the question, nor one pair of CJK characters alone; in a store of at least
``RARE_AMONG`` memories, where that is rare), and at least one of the question words it holds, is
put just above it, unless one of the two links to the other (the link's words are then what they
share). Questions about the past keep their order, as in the main stage. In a store of distinct
facts written with care (a Claude Code memory directory) a word two memories share is more often a
topic ("REST" in an API guide and in a deprecation) than a value: the type and the pair rule keep
such moves rare there (docs/recall.md has the figures).

On stores written from one pattern (many components with the same facts) the shared rare word is
often a value two components happen to share ("httpx"), so a move is right far less often there;
those moves change no measured figure, and a successor is never announced as the newer version of
a memory (the note beside a stale memory comes from the main stage alone). The figures behind the
numbers are in docs/recall.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from memdir.model.analysis import is_pair, tokenize
from memdir.recall.question_time import asks_about_the_past
from memdir.recall.words import memory_words
from memdir.store.links import LinkResolver, find_links
from memdir.store.scan import MemoryHeader

__all__ = ["RARE_AMONG", "SUCCESSOR_PLACES", "SUCCESSOR_POOL", "VALUE_HOLDERS", "WordRarity", "successor_first"]

SUCCESSOR_PLACES = 3
SUCCESSOR_POOL = 50
VALUE_HOLDERS = 2
# In a smaller store a word two memories hold is not rare: among three memories, "freeze" in "deploys
# go out after the freeze" and "the release freeze starts on Friday" is a shared topic, not a value.
RARE_AMONG = 20

_T = TypeVar("_T")


class WordRarity(Protocol):
    """Which words few memories of the whole store hold: the lexical index, in memory or stored."""

    def __len__(self) -> int:
        """How many memories the store holds."""
        ...

    def rare_words(self, terms: Iterable[str], most: int) -> frozenset[str]:
        """The ``terms`` that at least one and at most ``most`` memories hold."""
        ...


def successor_first(
    query: str, ranked: Sequence[tuple[MemoryHeader, _T]], rarity: WordRarity
) -> list[tuple[MemoryHeader, _T]]:
    """``ranked`` with the successor of each of its first places moved just above it (scores stay
    with the places, so the ranking stays sorted and a floor admits the same places)."""
    if len(ranked) < 2 or len(rarity) < RARE_AMONG or asks_about_the_past(query):
        return list(ranked)
    headers = [header for header, _ in ranked[:SUCCESSOR_POOL]]
    asked = frozenset(tokenize(query))
    place = 0
    while place < min(SUCCESSOR_PLACES, len(headers)):
        found = _successor(place, headers, asked, rarity)
        if found is None:
            place += 1
            continue
        headers.insert(place, headers.pop(found))
        place += 2  # past the successor and the memory it now stands above
    moved = headers + [header for header, _ in ranked[SUCCESSOR_POOL:]]
    return [(header, score) for header, (_, score) in zip(moved, ranked, strict=True)]


def _successor(place: int, pool: Sequence[MemoryHeader], asked: frozenset[str], rarity: WordRarity) -> int | None:
    """The index in ``pool`` of the newest memory after ``place`` that carries the value of the one at
    ``place`` and one of its question words, or None."""
    stale = pool[place]
    words = memory_words(stale)
    anchor = words & asked
    if not anchor:
        return None
    newer = [
        index
        for index in range(place + 1, len(pool))
        if pool[index].time_ms > stale.time_ms and pool[index].type == stale.type and memory_words(pool[index]) & anchor
    ]
    # Only the words a newer memory shares are counted: in a process that ranks once, the index
    # in memory counts a word by reading every memory.
    shared = (words - asked) & frozenset().union(*(memory_words(pool[index]) for index in newer))
    if not shared:
        return None
    values = rarity.rare_words(shared, VALUE_HOLDERS)
    found: int | None = None
    for index in newer:
        newest = found is None or pool[index].time_ms > pool[found].time_ms
        if newest and _carries(memory_words(pool[index]) & values) and not _linked(stale, pool[index]):
            found = index
    return found


def _carries(shared: frozenset[str]) -> bool:
    """Whether the rare words two memories share are a value: a word or a number, or at least two
    pairs of Chinese, Japanese or Korean characters. One such pair alone is most often the seam of
    two common words ("のモ" of "のモノレポ") that happens to be rare."""
    pairs = sum(1 for term in shared if is_pair(term))
    return len(shared) > pairs or pairs >= 2


def _linked(one: MemoryHeader, other: MemoryHeader) -> bool:
    """Whether either memory links to the other: a ``[[name]]`` puts the other's name among its
    words, and a linked memory is the rest of a story (:mod:`memdir.recall.linked`), not its update."""
    for source, target in ((one, other), (other, one)):
        if "[[" not in source.preview:
            continue
        resolver = LinkResolver((target,))
        if any(resolver.resolve(link.target) is not None for link in find_links(source.preview)):
            return True
    return False
