"""The contract every selector meets: what it is asked, what it answers.

A selector gets the query, the candidate headers (already-surfaced memories removed) and the
tools used in this turn, and returns at most ``limit`` file names, best first, drawn only from
the candidates. Selectors are built by kind through :mod:`memdir.recall.registry`; this module
holds only the protocol and the request and answer types, so a new selector depends on nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from memdir.model.memory_type import MemoryType
from memdir.recall.surfacing import MAX_SURFACED_FILES
from memdir.store.scan import MemoryHeader

__all__ = ["RankingSelector", "Selection", "SelectionRequest", "Selector", "is_tool_manual"]


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


@runtime_checkable
class RankingSelector(Selector, Protocol):
    """A selector that can also give its whole ranking: what batch evaluation and pre-filtering use.

    ``rank`` returns every candidate it considers relevant at all, best first, with a score whose
    scale is the selector's own; ``select`` applies the relevance floor and the limit on top.
    """

    def rank(self, query: str, candidates: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, float]]: ...


_CAUTION = re.compile(r"\b(warn|warning|gotcha|careful|caution|never|avoid|bug|broken|pitfall|don't|do not)\b", re.I)


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
