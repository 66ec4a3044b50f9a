"""Time-aware ordering: where ranked memories answer a question about one fact, the newer first.

A store keeps what was true when each memory was written: "the checkout API's p95 is 950 ms" and,
weeks later, "after the cache it is 140 ms". Relevance alone ranks whichever shares more words with
the question, which is the stale one about as often as not. This stage runs after scoring, on any
selector's ranking: among the best candidates it finds the few that are on the question's subject,
and gives their places in the ranking to them newest first. Nothing else moves, so it is not a
recency boost: a year-old rule that nothing newer on its subject joins keeps its place.

The question says what the subject is. A memory is on it when the question words it holds (name,
description and body preview) weigh at least a share of what the best-matching candidate's hold:
each question word weighs its rarity among the candidates (a project's name, in every memory,
weighs little; "bundle" or "TTL" much). Among ``WORDING_CANDIDATES`` or more, a word that only one of them
holds weighs less (``LONE_WORD_WEIGHT`` of its rarity): it is more often how that one memory was
worded ("the *web* bundle") than something a fact's versions share; a pair of Chinese, Japanese
or Korean characters that only one candidate holds weighs less still (``LONE_PAIR_WEIGHT``), since
most such pairs span two words ("口缓" of "接口缓存"). Among fewer candidates every word weighs its
full rarity: in a store of three memories, the one word only the right memory holds is as likely its
subject. Two memories about different things match different words of the question, so "the
search service's HTTP client" does not join a question about the checkout API's; and at least
``LEADER_WORDS`` of a member's question weight must be words the best-matching candidate holds too
("Caroline is considering a career" does not join "Caroline chose an adoption agency" for a
question about the agency Caroline is considering: its words are mostly others).

A fact has a few versions. The share starts at 0.6 and rises (``SUBJECT_SHARES``) until at most
``MAX_VERSIONS`` candidates are on the subject; when even the strictest share finds more, the
question is about something many memories touch (a person's hobbies, a component's many facts),
not about one fact, and the ranking stays as it is. A question about the past ("when did we move
to Node 20?", :mod:`memdir.recall.question_time`) also keeps its ranking.

Comparing the memories with each other instead (their descriptions' overlap, numbers left out)
found the versions of a fact a fifth of the time: versions share the subject's key word and little
else, while two facts written alike about different things share everything but it.

A memory's time is its ``modified:`` stamp, else its mtime (:attr:`MemoryHeader.time_ms`). The
figures were chosen on ``bench/recall_truth.py`` and checked on LoCoMo (docs/recall.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from memdir.model.analysis import is_pair, tokenize
from memdir.model.markup import neutralise
from memdir.recall.question_time import asks_about_the_past
from memdir.recall.successors import WordRarity, successor_first
from memdir.recall.words import memory_words
from memdir.store.scan import MemoryHeader

__all__ = [
    "LEADER_WORDS",
    "LONE_PAIR_WEIGHT",
    "LONE_WORD_WEIGHT",
    "MAX_VERSIONS",
    "SUBJECT_SHARES",
    "WINDOW",
    "WORDING_CANDIDATES",
    "QuestionSubject",
    "admitted_newer_first",
    "newer_first",
    "newer_note",
    "newer_on_subject",
]

SUBJECT_SHARES = (0.6, 0.7, 0.8, 0.9)
LEADER_WORDS = 0.7
MAX_VERSIONS = 4
LONE_WORD_WEIGHT = 0.5
WORDING_CANDIDATES = 6
LONE_PAIR_WEIGHT = 0.25
# Only the head of a ranking is reordered, and only its memories are weighed: the tail is never
# surfaced, and with 20 rather than 10 the stage moved more far, unrelated memories up (docs/recall.md).
WINDOW = 10

_T = TypeVar("_T")


def _lone(term: str, holders: int) -> float:
    """How much of its rarity a question word weighs when only ``holders`` candidates hold it."""
    if holders > 1:
        return 1.0
    return LONE_PAIR_WEIGHT if is_pair(term) else LONE_WORD_WEIGHT


class QuestionSubject:
    """Which of a few ranked memories are the versions of the one fact a question asks about."""

    def __init__(self, query: str, headers: Sequence[MemoryHeader]) -> None:
        self.members: list[int] = []
        if asks_about_the_past(query):
            return
        asked = frozenset(tokenize(query))
        held = [memory_words(header) & asked for header in headers]
        holders: dict[str, int] = {}
        for terms in held:
            for term in terms:
                holders[term] = holders.get(term, 0) + 1
        count = len(headers) + 1
        # Only enough candidates say that a word one of them holds is mere wording: among three
        # memories, the one word only the right memory holds is as likely its subject.
        full = len(headers) >= WORDING_CANDIDATES
        weight = {
            term: math.log(1.0 + count / (1 + seen)) * (_lone(term, seen) if full else 1.0)
            for term, seen in holders.items()
        }
        masses = [sum(weight[term] for term in terms) for terms in held]
        best = max(masses, default=0.0)
        if best <= 0:
            return
        leader = held[masses.index(best)]
        alike = [
            i
            for i, terms in enumerate(held)
            if sum(weight[term] for term in terms & leader) >= LEADER_WORDS * masses[i]
        ]
        for share in SUBJECT_SHARES:
            members = [i for i in alike if masses[i] >= share * best]
            if len(members) <= MAX_VERSIONS:
                self.members = members if len(members) > 1 else []
                return


def newer_first(
    query: str,
    ranked: Sequence[tuple[MemoryHeader, _T]],
    *,
    window: int = WINDOW,
    rarity: WordRarity | None = None,
) -> list[tuple[MemoryHeader, _T]]:
    """``ranked`` with, within its first ``window`` entries, the memories on the question's subject
    given their places newest first. Scores stay with the places, so a ranking stays sorted
    and a floor applied afterwards admits the same places (the newest member takes the best one).
    With ``rarity`` (the lexical index's word counts) a newer memory that carries the value of one of
    the first places is then put above it (:mod:`memdir.recall.successors`)."""
    head = list(ranked[:window])
    if len(head) < 2:
        return list(ranked)
    headers = [header for header, _ in head]
    group = QuestionSubject(query, headers).members
    if len(group) > 1:
        newest = sorted(group, key=lambda i: (-headers[i].time_ms, i))
        for place, i in zip(group, newest, strict=True):
            head[place] = (headers[i], head[place][1])
    staged = head + list(ranked[window:])
    return staged if rarity is None else successor_first(query, staged, rarity)


def admitted_newer_first(
    query: str,
    ranked: Sequence[tuple[MemoryHeader, _T]],
    admitted: set[str],
    *,
    window: int = WINDOW,
    rarity: WordRarity | None = None,
) -> list[MemoryHeader]:
    """The admitted part of ``ranked`` after :func:`newer_first`, admission going with the place: when
    a stale memory cleared a selector's floor and its newer version did not (it shares fewer words
    with the question), the newer one takes the stale one's place and is surfaced instead of it."""
    kept = [header.path in admitted for header, _ in ranked]
    staged = newer_first(query, ranked, window=window, rarity=rarity)
    return [header for (header, _), keep in zip(staged, kept, strict=True) if keep]


def newer_on_subject(query: str, headers: Sequence[MemoryHeader]) -> dict[str, MemoryHeader]:
    """For each memory in ``headers`` that another one about the same subject (for ``query``) is
    newer than: path -> the newest such memory. What recall uses to tell the model, beside a stale
    memory, which one is current."""
    if len(headers) < 2:
        return {}
    members = [headers[i] for i in QuestionSubject(query, headers).members]
    if len(members) < 2:
        return {}
    newest = max(members, key=lambda header: header.time_ms)
    return {header.path: newest for header in members if header.time_ms < newest.time_ms}


def newer_note(newer: MemoryHeader) -> str:
    """The line put above a surfaced memory when a newer one on its subject is surfaced too."""
    return f"A newer memory on the same subject: {neutralise(newer.path)}"
