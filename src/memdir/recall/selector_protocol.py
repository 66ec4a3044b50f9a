"""The contract every selector meets: what it is asked, what it answers.

A selector gets the query, the candidate headers (already-surfaced memories removed) and the
tools used in this turn, and returns at most ``limit`` file names, best first, drawn only from
the candidates. Selectors are built by kind through :mod:`memdir.recall.registry`; this module
holds only the protocol, the query and the request and answer types, so a new selector depends on
nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from memdir.model.analysis import tokenize
from memdir.model.memory_type import MemoryType
from memdir.model.patterns import LazyPattern
from memdir.model.timefields import is_expired
from memdir.recall.surfacing import MAX_SURFACED_FILES
from memdir.store.scan import MemoryHeader

if TYPE_CHECKING:
    from memdir.store.ranked_store import RankedStore

__all__ = [
    "Query",
    "RankingSelector",
    "Selection",
    "SelectionRequest",
    "Selector",
    "StoreRequest",
    "StoreSelection",
    "StoreSelector",
    "admitted_in_order",
    "is_tool_manual",
    "selection_of",
    "unexpired",
]


class Query(str):
    """The message a recall is for, analysed once: the text, and its distinct ``terms`` (memdir's
    tokeniser: stemmed English words, pairs of Chinese, Japanese, Korean and Thai characters) in
    the order they come.

    One recall asks several things of its message: the lexical ranking, the stored postings, the
    hybrid and the relevance floor its terms, linked recall whether a memory shares one of them,
    the embedding and the model selector its text. The recaller builds one ``Query`` and hands it
    down, and each of them reads it instead of tokenising the message again. It is a ``str``, the
    text itself, because :attr:`SelectionRequest.query` is one: every selector, a plugin's too,
    reads it as text, unchanged. ``Query(query)`` of a ``Query`` is that same object, so a stage
    called on its own (a selector's ``rank``) analyses the text it is given, once.
    """

    terms: tuple[str, ...]

    def __new__(cls, text: str) -> Query:
        if isinstance(text, Query):
            return text
        query = super().__new__(cls, text)
        query.terms = tuple(dict.fromkeys(tokenize(text)))
        return query


class SelectionRequest(NamedTuple):
    """What a selector chooses from: the query, the candidates, the tools in use and how many to pick."""

    query: str
    candidates: Sequence[MemoryHeader]
    recent_tools: Sequence[str] = ()
    limit: int = MAX_SURFACED_FILES


class Selection(NamedTuple):
    """The answer: file names best first, and which selector produced them."""

    files: tuple[str, ...]
    selector: str
    notes: tuple[str, ...] = ()  # e.g. why a fallback happened


@runtime_checkable
class Selector(Protocol):
    name: str

    def select(self, request: SelectionRequest) -> Selection: ...


class StoreRequest(NamedTuple):
    """A selection over the whole store, ranked where it is kept (the derived index) rather than
    over headers held in memory: the store, the paths to leave out (already surfaced), and
    ``budget``, the most memories the ranking may analyse now to catch up (None: no bound)."""

    query: str
    store: RankedStore
    exclude: frozenset[str] = frozenset()
    recent_tools: Sequence[str] = ()
    limit: int = MAX_SURFACED_FILES
    budget: int | None = None
    now_s: float | None = None  # the time expiry is judged at (None: now)


def unexpired(ranked: Sequence[tuple[MemoryHeader, float]], now_s: float | None) -> list[tuple[MemoryHeader, float]]:
    """A store ranking without the memories recall never surfaces, which the index ranks with the
    rest: those past their ``expires:`` date (local time), and conflict copies (the same memory a
    second time, waiting for a person to resolve it)."""
    kept = list(ranked)
    if any(".conflict-" in header.filename for header, _ in kept):
        from memdir.model.conflicts import is_conflict_copy

        kept = [(header, score) for header, score in kept if not is_conflict_copy(header.filename)]
    if not any(header.expires for header, _ in kept):
        return kept
    import time

    today = time.strftime("%Y-%m-%d", time.localtime(now_s))
    return [(header, score) for header, score in kept if not is_expired(header.expires, today)]


class StoreSelection(NamedTuple):
    """A selection from the store, with the headers of the memories it read (by file name)."""

    selection: Selection
    headers: Mapping[str, MemoryHeader]


@runtime_checkable
class StoreSelector(Protocol):
    """A selector that can rank the whole store inside the derived index, reading only the headers
    of its best candidates. None: it cannot answer from the store now (its stored data is behind
    by more than the budget), and the caller ranks headers instead."""

    def select_store(self, request: StoreRequest) -> StoreSelection | None: ...


@runtime_checkable
class RankingSelector(Selector, Protocol):
    """A selector that can also give its whole ranking: what batch evaluation and pre-filtering use.

    ``rank`` returns every candidate it considers relevant at all, best first, with a score whose
    scale is the selector's own; ``select`` applies the relevance floor and the limit on top.
    """

    def rank(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]: ...


_CAUTION = LazyPattern(r"\b(warn|warning|gotcha|careful|caution|never|avoid|bug|broken|pitfall|don't|do not)\b", re.I)


def admitted_in_order(ranked: Sequence[tuple[MemoryHeader, float]], admitted: Collection[str]) -> list[MemoryHeader]:
    """The memories of ``ranked`` whose paths cleared a selector's floor (``admitted``), in order."""
    return [header for header, _ in ranked if header.path in admitted]


def is_tool_manual(header: MemoryHeader, recent_tools: Sequence[str]) -> bool:
    """A reference memory about a tool in use right now, with no warning in it: the model has the tool
    in hand, so its manual is noise, while a gotcha about it is exactly what helps."""
    if header.type is not MemoryType.REFERENCE or not recent_tools:
        return False
    text = f"{header.name or ''} {header.description or ''}"
    if _CAUTION.search(text):
        return False
    lowered = text.lower()
    return any(tool.lower() in lowered for tool in recent_tools if len(tool) > 2)


def selection_of(admitted: Iterable[MemoryHeader], recent_tools: Sequence[str], limit: int, selector: str) -> Selection:
    """A selector's answer: the first ``limit`` of the memories it admitted (best first), less the
    manuals of the tools in use (:func:`is_tool_manual`)."""
    files = [header.filename for header in admitted if not is_tool_manual(header, recent_tools)]
    return Selection(files=tuple(files[:limit]), selector=selector)
