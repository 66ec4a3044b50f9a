"""What may already say it: the existing memories a writer is shown before a new one is saved.

Word overlap cannot tell "this fact in other words" from "another fact written alike" ("the
checkout API times out after 30 seconds" / "the search API times out after 5 seconds"), so a
write is never refused for resembling something. Every write path instead asks this module which
existing memories may say the same, with high recall, and shows them to the writer with their
dates and the way to update in place; the writer decides. Only a memory nearly identical to one
that exists (the same words, numbers included: "Topic 2" is not "Topic 1") is refused.

- **May say the same** (:func:`near_memories`): the new memory's name, description and the start
  of its body, asked as a recall query of the store: the offline ranking, BM25 and, where the
  ``embed`` extra is installed, the sentence embedding, under their relevance floors. A writer
  pays for the embedding; the prompt hook never runs this.
- **Nearly identical** (:data:`IDENTICAL_FLOOR`): the description and the start of the body hold
  the same words, numbers counted (case, punctuation, word order, stop words and English suffixes
  aside). The name is left out: it is a title, and one memory saved twice under two titles is
  still one memory. A looser share refused real updates and other facts written from one sentence
  pattern (in Chinese, a fact and its update share nine tenths of their character pairs; on the
  labelled pairs of ``bench/recall_truth.py`` a share of 0.9 refused 5% of the updates).
  ``doctor`` lists such pairs over the whole store with :meth:`Similarity.clusters`, which pairs
  only the memories that can qualify.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from memdir.errors import MemoryExists
from memdir.model.analysis import tokenize
from memdir.model.memory import Memory
from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    from memdir.recall.selector_protocol import Selector
    from memdir.store.directory import MemoryDir
    from memdir.store.records import SaveResult

__all__ = [
    "IDENTICAL_FLOOR",
    "NEAR_SHOWN",
    "Near",
    "Similarity",
    "identical_refusal",
    "memory_terms",
    "near_lines",
    "near_memories",
    "save_unless_identical",
]

# Two memories whose words (numbers counted) are all the same say one thing word for word.
IDENTICAL_FLOOR = 1.0
# How many memories a writer is shown: a recall's worth, what a person reads at a glance.
NEAR_SHOWN = 5
_BODY_CHARS = 600


class Near(NamedTuple):
    """An existing memory that may say what a new one says, the share of words they have in
    common (0 to 1, numbers counted), and whether that makes them nearly identical."""

    header: MemoryHeader
    score: float
    identical: bool


_CACHE_LIMIT = 20_000  # doctor compares every memory of the store; a long-lived server keeps their words
_cached: dict[tuple[str, float, int], frozenset[str]] = {}


def stored_terms(header: MemoryHeader) -> frozenset[str]:
    """The words a stored memory is compared by: its description and the start of its body."""
    key = (header.path, header.mtime_ms, header.size)
    found = _cached.get(key)
    if found is None:
        found = memory_terms(header.description, header.preview)
        if len(_cached) >= _CACHE_LIMIT:
            _cached.clear()
        _cached[key] = found
    return found


def memory_terms(description: str | None, body: str = "") -> frozenset[str]:
    """The words a memory is compared by (as :func:`stored_terms` for a saved one), numbers included."""
    return frozenset(tokenize(f"{description or ''}\n{body[:_BODY_CHARS]}"))


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """The share of the two memories' words they have in common (Jaccard)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


class Similarity:
    """Nearly identical memories among ``headers`` (a whole store)."""

    def __init__(self, headers: Sequence[MemoryHeader], *, floor: float = IDENTICAL_FLOOR) -> None:
        self.headers = list(headers)
        self.floor = floor
        self.terms = [stored_terms(header) for header in self.headers]

    def candidates(self, floor: float) -> list[list[int]]:
        """For each memory (by position), the later ones whose overlap with it may reach ``floor``,
        ascending: every pair that does is among them, without comparing every pair (100,000
        memories are five billion pairs).

        Prefix filtering (after the AllPairs and PPJoin joins): each memory's words in one order for
        the whole store (rarest first), memories taken smallest first. Two memories of ``a`` and
        ``b`` words (``a >= b``) at ``floor`` or above share at least ``t·a`` words, so each holds one
        of them among its first ``len - ceil(t·len) + 1`` words: a memory is looked up by that
        prefix among the prefixes of the smaller ones, and one smaller than ``t·a`` is skipped."""
        df: dict[str, int] = {}
        for terms in self.terms:
            for term in terms:
                df[term] = df.get(term, 0) + 1
        ordered = [sorted(terms, key=lambda term: (df[term], term)) for terms in self.terms]
        order = sorted(range(len(self.terms)), key=lambda i: (len(self.terms[i]), i))
        holders: dict[str, list[int]] = {}
        later: list[set[int]] = [set() for _ in self.terms]
        for i in order:
            size = len(ordered[i])
            if not size:
                continue
            prefix = size - _ceil(floor * size) + 1
            smallest = floor * size - 1e-9
            for term in ordered[i][:prefix]:
                for j in holders.get(term, ()):
                    if len(self.terms[j]) >= smallest:
                        later[min(i, j)].add(max(i, j))
                holders.setdefault(term, []).append(i)
        return [sorted(found) for found in later]

    def clusters(self) -> list[list[MemoryHeader]]:
        """Groups of stored memories that are nearly identical (each member to the first)."""
        taken = [False] * len(self.headers)
        groups: list[list[MemoryHeader]] = []
        near = self.candidates(self.floor)
        for i in range(len(self.headers)):
            if taken[i]:
                continue
            members = [i] + [j for j in near[i] if not taken[j] and overlap(self.terms[i], self.terms[j]) >= self.floor]
            if len(members) > 1:
                for j in members:
                    taken[j] = True
                groups.append([self.headers[j] for j in members])
        return groups


def _ceil(value: float) -> int:
    whole = int(value)
    return whole if value - whole < 1e-9 else whole + 1


def near_memories(
    memory_dir: MemoryDir,
    memory: Memory,
    *,
    ranker: Selector | None = None,
    exclude: str | None = None,
    limit: int = NEAR_SHOWN,
) -> list[Near]:
    """The existing memories of ``memory_dir`` that may say what ``memory`` says, most related
    first: the store ranked for it by ``ranker`` (the offline ranking; BM25 by default), over the
    derived index when the directory has one. ``exclude``: the path of the memory itself."""
    from memdir.recall.lexical_selector import LexicalSelector
    from memdir.recall.recaller import Recaller

    query = f"{memory.name or ''}\n{memory.description or ''}\n{memory.body[:_BODY_CHARS]}".strip()
    if not query:
        return []
    recaller = Recaller(memory_dir, selector=ranker or LexicalSelector(), follow_links=False)
    own = memory_terms(memory.description, memory.body)
    found: list[Near] = []
    # The whole store: ranked in its derived index when it has one, else every header (no scan cap).
    store = memory_dir.ranked_store()
    headers = None if store is not None else memory_dir.headers()
    for header in recaller.chosen(query, limit=limit + 1, headers=headers, store=store):
        if header.path == exclude:
            continue
        score = overlap(own, stored_terms(header))
        found.append(Near(header, score, score >= IDENTICAL_FLOOR))
    return found[:limit]


def near_lines(near: Sequence[Near], shown: Callable[[MemoryHeader], str], now_ms: float) -> str:
    """The near memories as an agent is shown them: one line each, its path (``shown``), its age
    and its description, neutralised (a memory's words are data)."""
    from memdir.model.markup import neutralise
    from memdir.recall.surfacing import memory_age

    return "\n".join(
        f"- {neutralise(shown(n.header))} (saved {memory_age(n.header.time_ms, now_ms)}): "
        f"{neutralise(' '.join((n.header.description or n.header.name or '').split()))}"
        for n in near
    )


def identical_refusal(near: Sequence[Near], shown: Callable[[MemoryHeader], str]) -> str | None:
    """What an agent is told when a new file says what an existing memory says nearly word for
    word (the file is not written), or None when none does."""
    from memdir.model.markup import neutralise

    same = next((n for n in near if n.identical), None)
    if same is None:
        return None
    return (
        f"Not written: {neutralise(shown(same.header))} already says this nearly word for word. "
        "Change that memory if something in it is out of date."
    )


def save_unless_identical(
    memory_dir: MemoryDir,
    memory: Memory,
    *,
    file: str | None = None,
    force: bool = False,
    ranker: Selector | None = None,
) -> tuple[SaveResult, list[Near]]:
    """Save ``memory`` and name the memories that may already say it; refuse it (``MemoryExists``,
    rule ``identical``) when one says it nearly word for word, unless ``force`` (which also
    replaces an existing file of that name). The check runs under the directory lock, so two
    writers saving one memory at once save it once."""
    near: list[Near] = []

    def check(path: str) -> None:
        near[:] = near_memories(memory_dir, memory, ranker=ranker, exclude=path)
        same = next((n for n in near if n.identical), None)
        if same is not None and not force:
            raise MemoryExists(
                f"not saved: {same.header.filename} already says this nearly word for word; change that one "
                "instead, or save anyway with force",
                path=same.header.path,
                rule="identical",
            )

    result = memory_dir.save(memory, file=file, force=force, check=check)
    return result, near
