"""Versions of one subject: the only memories recall lets time order, and how it shows them.

A store keeps what was true when each memory was written, so an updated fact is often two files.
Relevance alone ranks whichever shares more words with the message, and word overlap cannot tell
"this fact in other words" from "another fact" ("Checkout timeout" and "Search timeout" share two
words and are two facts). So recall orders memories by time only where a precise signal says they
are versions of one subject:

- **a recorded relation**: the newer memory's frontmatter says ``replaces:`` the older one
  (:mod:`memdir.model.relations`), written by whoever decided it;
- **names that say one subject**: the same name (the same terms once case, spacing, stop words
  and English suffixes are set aside; numbers count, so "Topic 2" is not "Topic 1"), or a name
  that starts or ends with the whole of the other, at least two terms long, and adds a word of
  change ("Dashboard API latency" / "Dashboard API latency after caching", "仪表盘接口延迟" /
  "仪表盘接口延迟（缓存后）"), both memories of one type. A name that merely extends another
  ("Checkout API" / "Checkout API timeout") is as often another attribute as a new version, so it
  says nothing. A name held by more than :data:`CATEGORY_SIZE` memories names a category, not one
  fact ("Caroline, session 3" over every observation of a session), and says nothing either; nor
  do names of memories saved within an hour of each other (:data:`SITTING_MS`): one batch written
  together, not a fact and its later update.

``bench/subject_pairs.py`` measures the name rule on labelled pairs in six languages (docs/recall.md).

What recall does with versions (:func:`arrange`): the newest comes first; when the selector chose
an older one and not the newest, the newest is brought in beside it, so both reach the model, with
their dates; the older one carries a line naming the newer. A memory a recorded relation replaces
is surfaced only after its replacement (or when the conversation was already shown it), labelled.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from memdir.model.analysis import tokenize
from memdir.model.markup import neutralise
from memdir.recall.surfacing import memory_age
from memdir.store.links import link_key
from memdir.store.scan import MemoryHeader, memory_title, subject_key

__all__ = [
    "CATEGORY_SIZE",
    "SITTING_MS",
    "Shown",
    "VersionLookup",
    "arrange",
    "decided_distinct",
    "name_versions",
    "named_pairs",
    "newer_note",
    "replaces_recorded",
    "same_subject_names",
]

# More memories than this under one name are a category ("Caroline, session 3"), not versions.
CATEGORY_SIZE = 3
# Memories saved within this of each other under names that say one subject are one batch written
# together (the observations of one session, the parts of one import), not a fact and its update.
SITTING_MS = 3_600_000.0
# Words of change that make a longer name a new version of the shorter one, per language: kept as
# data. Matched as whole words in scripts written with spaces, as substrings in the others.
# fmt: off
_CHANGE_WORDS = frozenset((
    "after", "since", "now", "updated", "update", "new", "latest", "current", "revised", "changed", "change",
    "tras", "después", "actualizado", "actualizada", "nuevo", "nueva", "cambio",  # Spanish
    "nach", "aktualisiert", "neu", "aktuell", "wechsel",  # German
    "après", "mis", "nouveau", "nouvelle", "actuel", "actuelle",  # French
    "후",  # Korean: "after", a word of its own
))
_CHANGE_MARKS = (
    "更新", "变更", "變更", "之后", "以后", "之後", "以後", "后）", "后)", "后的", "现在", "現在", "最新",  # Chinese
    "後の", "後）", "後)", "変更",  # Japanese
    "변경", "업데이트", "최신", "현재", "이후",  # Korean, glued to their word
)
# fmt: on
_VERSION_TAG = frozenset(f"v{n}" for n in range(2, 100))
_MAX_HOPS = 8  # a chain of recorded replacements longer than this is a loop someone wrote


def _change_word(text: str) -> bool:
    folded = unicodedata.normalize("NFKC", text).casefold()
    if any(mark in folded for mark in _CHANGE_MARKS):
        return True
    words = "".join(ch if ch.isalnum() else " " for ch in folded).split()
    return any(word in _CHANGE_WORDS or word in _VERSION_TAG for word in words)


def _terms(name: str) -> tuple[str, ...]:
    return tuple(tokenize(name))


def _extends(shorter: tuple[str, ...], longer: tuple[str, ...]) -> bool:
    size = len(shorter)
    return size >= 2 and size < len(longer) and (longer[:size] == shorter or longer[-size:] == shorter)


def same_subject_names(a: str, b: str) -> bool:
    """Whether two memory names say one subject (the name rule above, type and category aside)."""
    x, y = _terms(a), _terms(b)
    if not x or not y:
        return False
    if x == y:
        return True
    (shorter, short_name), (longer, long_name) = sorted(((x, a), (y, b)), key=lambda item: len(item[0]))
    return _extends(shorter, longer) and _change_word(long_name) and not _change_word(short_name)


def _keys(header: MemoryHeader) -> set[str]:
    """How a relation may name ``header``: its file name or its name (as links are resolved)."""
    return {link_key(header.filename)} | ({link_key(header.name)} if header.name else set())


def decided_distinct(a: MemoryHeader, b: MemoryHeader) -> bool:
    """Whether someone recorded that ``a`` and ``b`` are different facts (``distinct-from:`` on either)."""
    return any(link_key(t) in _keys(b) for t in a.distinct) or any(link_key(t) in _keys(a) for t in b.distinct)


def replaces_recorded(newer: MemoryHeader, older: MemoryHeader) -> bool:
    """Whether ``newer`` records that it replaces ``older``."""
    return any(link_key(target) in _keys(older) for target in newer.replaces)


def name_versions(a: MemoryHeader, b: MemoryHeader) -> bool:
    """Whether the names of ``a`` and ``b`` say they are versions of one subject: the name rule,
    one type, saved more than a sitting apart, and not recorded as different facts (a category
    name aside, which takes the whole store: :class:`VersionLookup`)."""
    return (
        a.path != b.path
        and a.type == b.type
        and abs(a.time_ms - b.time_ms) > SITTING_MS
        and same_subject_names(memory_title(a), memory_title(b))
        and not decided_distinct(a, b)
    )


class Shown(NamedTuple):
    """A memory recall surfaces and, when it has one, its newer version and whether a recorded
    relation (rather than the names) says so."""

    header: MemoryHeader
    newer: MemoryHeader | None = None
    recorded: bool = False


class VersionLookup:
    """The versions among ``pool`` (the memories recall may surface, expired ones left out).

    ``replacers``: the memories that record replacing others, when the pool is not the whole store
    (the derived index hands them over; by default those of the pool). ``name_counts``: how many
    memories of the whole store hold each of some names, when the pool is not the whole store.
    """

    def __init__(
        self,
        pool: Sequence[MemoryHeader],
        *,
        replacers: Iterable[MemoryHeader] | None = None,
        name_counts: Callable[[Sequence[str]], dict[str, int]] | None = None,
    ) -> None:
        self.pool = [header for header in pool]
        self._replacers = [h for h in (self.pool if replacers is None else replacers) if h.replaces]
        self._name_counts = name_counts
        self._counts: dict[str, int] | None = None

    def _category(self, header: MemoryHeader) -> bool:
        key = subject_key(header)
        if self._name_counts is not None:
            return self._name_counts([key]).get(key, 0) > CATEGORY_SIZE
        if self._counts is None:
            counts: dict[str, int] = {}
            for other in self.pool:
                other_key = subject_key(other)
                counts[other_key] = counts.get(other_key, 0) + 1
            self._counts = counts
        return self._counts.get(key, 0) > CATEGORY_SIZE

    def _replacer(self, header: MemoryHeader, visited: set[str]) -> MemoryHeader | None:
        """The newest memory that records replacing ``header`` (one step)."""
        found = [other for other in self._replacers if other.path not in visited and replaces_recorded(other, header)]
        return max(found, key=lambda h: (h.time_ms, h.filename)) if found else None

    def named_newer(self, header: MemoryHeader) -> MemoryHeader | None:
        """The newest memory whose name says ``header``'s subject and that is newer than it."""
        newer = [other for other in self.pool if other.time_ms > header.time_ms and name_versions(header, other)]
        if not newer or self._category(header):
            return None
        return max(newer, key=lambda h: (h.time_ms, h.filename))

    def newer_version(self, header: MemoryHeader) -> tuple[MemoryHeader, bool] | None:
        """``header``'s current version, followed to the end (a recorded replacement, else the newest
        version its name says, and again from there), and whether every step to it is recorded
        (else a name says part of the way, and the note may not claim a record); None when it has
        none newer."""
        current, recorded = header, True
        visited = {header.path}
        for _ in range(_MAX_HOPS):
            step = self._replacer(current, visited)
            by_record = step is not None
            if step is None:
                step = self.named_newer(current)
            if step is None or step.path in visited:
                break
            recorded = recorded and by_record
            current = step
            visited.add(step.path)
        return None if current is header else (current, recorded)


def named_pairs(headers: Sequence[MemoryHeader]) -> list[tuple[MemoryHeader, MemoryHeader]]:
    """Every pair of a store's memories (older, newer) whose names say they are versions of one
    subject, with no recorded relation between them either way: what ``doctor`` proposes for a
    person to decide. Names are looked up by their terms, so the store is read once."""
    by_terms: dict[tuple[str, ...], list[MemoryHeader]] = {}
    for header in headers:
        terms = _terms(memory_title(header))
        if terms:
            by_terms.setdefault(terms, []).append(header)
    pairs: dict[tuple[str, str], tuple[MemoryHeader, MemoryHeader]] = {}
    for terms, holders in by_terms.items():
        if len(holders) > CATEGORY_SIZE:
            continue
        shorter = [terms[:size] for size in range(2, len(terms))] + [terms[-size:] for size in range(2, len(terms))]
        near = [
            *holders,
            *(h for part in shorter for h in by_terms.get(part, ()) if len(by_terms[part]) <= CATEGORY_SIZE),
        ]
        for a in holders:
            for b in near:
                if a.path == b.path or not name_versions(a, b):
                    continue
                older, newer = (a, b) if a.time_ms < b.time_ms else (b, a)
                if replaces_recorded(newer, older) or replaces_recorded(older, newer):
                    continue
                pairs[(older.path, newer.path)] = (older, newer)
    return sorted(pairs.values(), key=lambda pair: (pair[0].filename, pair[1].filename))


def newer_note(newer: MemoryHeader, *, recorded: bool, now_ms: float) -> str:
    """The line above a surfaced memory that has a newer version (never inside its text)."""
    age = memory_age(newer.time_ms, now_ms)
    path = neutralise(newer.path)
    if recorded:
        return f"Replaced by a newer memory (recorded; saved {age}): {path}"
    return f"A newer memory on the same subject (saved {age}): {path}"


def arrange(
    chosen: Sequence[MemoryHeader],
    lookup: VersionLookup,
    *,
    shown_before: Callable[[str], bool],
    current: Callable[[MemoryHeader], bool],
) -> list[Shown]:
    """``chosen`` (the selector's choice, best first) with the versions of one subject together:
    at the place of the first of them, the current version (moved up when it was chosen further
    down, brought in when it was not, left out when the conversation was already shown it:
    ``shown_before``), then the older ones chosen, newest first, each naming the current one. A
    memory replaced by a recorded relation whose replacement no longer applies (``current`` says it
    has expired) is left out: what replaced it has ended too."""
    found = {header.path: lookup.newer_version(header) for header in chosen}
    heads = {path: (version[0] if version else None) for path, version in found.items()}
    recorded = {path: bool(version and version[1]) for path, version in found.items()}
    shown: list[Shown] = []
    placed: set[str] = set()
    was_chosen = {header.path for header in chosen}
    for header in chosen:
        if header.path in placed:
            continue
        head = heads[header.path] or header
        older = sorted(
            (h for h in chosen if (newer := heads[h.path]) is not None and newer.path == head.path),
            key=lambda h: (-h.time_ms, h.filename),
        )
        placed.update(h.path for h in older)
        # A memory the selector chose is current (expired ones are never candidates); one brought
        # in as the current version of what it chose may have expired.
        if head.path not in was_chosen and not current(head):
            # An expired current version: a memory it records replacing is left out; by names, the
            # older ones stand on their own.
            shown += [Shown(member) for member in older if not recorded[member.path]]
            continue
        if head.path not in placed and not shown_before(head.path):
            shown.append(Shown(head))
        placed.add(head.path)
        shown += [Shown(member, head, recorded[member.path]) for member in older]
    return shown
