"""What ``memdir doctor`` tells about a store's contents rather than its format: information, not errors.

- memories past their ``expires:`` date (kept on disk, no longer recalled);
- clusters of near-duplicates (the test every write path uses), with the merge that fixes each;
- pairs on one subject that disagree: much the same words, different numbers (a stale figure
  beside the current one), with the newer named;
- ``[[links]]`` that point at no memory (fine to write ahead of the memory; worth knowing).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from memdir.model.analysis import tokenize
from memdir.model.memory import Memory
from memdir.model.timefields import is_expired
from memdir.recall.similar import Similarity
from memdir.store.links import LinkResolver, find_links
from memdir.store.scan import MemoryHeader

__all__ = ["DISAGREE_FLOOR", "Note", "store_notes"]

# Word overlap (numbers aside) from which two memories holding different numbers are taken to
# give two values of one fact; lower than the near-duplicate floor, since they differ in the number.
DISAGREE_FLOOR = 0.4
_NUMBER = re.compile(r"\d")


class Note(NamedTuple):
    file: str
    line: int | None
    rule: str
    message: str


def _numbers(header: MemoryHeader) -> frozenset[str]:
    text = f"{header.description or ''}\n{header.preview[:600]}"
    return frozenset(term for term in tokenize(text) if _NUMBER.search(term))


def _expired(headers: Sequence[MemoryHeader], today: str) -> list[Note]:
    return [
        Note(h.filename, None, "expired", f"expired on {h.expires}: no longer recalled; delete it or move the date")
        for h in headers
        if is_expired(h.expires, today)
    ]


def _duplicates(similarity: Similarity) -> list[Note]:
    notes: list[Note] = []
    for cluster in similarity.clusters():
        newest = max(cluster, key=lambda h: h.time_ms)
        others = [h.filename for h in cluster if h is not newest]
        fix = "; ".join(f"memdir merge {newest.filename} {other}" for other in others)
        listed = ", ".join(h.filename for h in cluster)
        notes.append(Note(newest.filename, None, "near-duplicates", f"{listed} say nearly the same; fix: {fix}"))
    return notes


def _disagreements(similarity: Similarity) -> list[Note]:
    notes: list[Note] = []
    headers = similarity.headers
    numbers = [_numbers(h) for h in headers]
    # Only memories that hold a number can give two values of one fact.
    near = similarity.candidates(DISAGREE_FLOOR, among=[i for i, found in enumerate(numbers) if found])
    for i, a in enumerate(headers):
        for j in near[i]:
            if not numbers[i] or not numbers[j] or numbers[i] == numbers[j]:
                continue
            score = similarity.overlap_at(i, j, DISAGREE_FLOOR)
            if score < DISAGREE_FLOOR or score >= similarity.floor:
                continue  # unrelated, or already reported as near-duplicates
            b = headers[j]
            older, newer = (a, b) if a.time_ms <= b.time_ms else (b, a)
            message = (
                f"{older.filename} and {newer.filename} give different figures on one subject; "
                f"{newer.filename} is newer: fix: memdir merge {newer.filename} {older.filename}, "
                f"or correct {older.filename}"
            )
            notes.append(Note(older.filename, None, "disagree", message))
    return notes


def _dangling(headers: Sequence[MemoryHeader], bodies: Mapping[str, str]) -> list[Note]:
    resolver = LinkResolver(headers)
    notes: list[Note] = []
    for file, body in bodies.items():
        for link in find_links(body):
            if resolver.resolve(link.target) is None:
                message = f"[[{link.target}]] points at no memory yet (a link may be written before its memory)"
                notes.append(Note(file, None, "dangling-link", message))
    return notes


def store_notes(headers: Sequence[MemoryHeader], memories: Mapping[str, Memory], today: str) -> list[Note]:
    """Every note about a store whose memories are ``headers`` (read in full: ``memories``)."""
    similarity = Similarity(headers)
    bodies = {file: memory.body for file, memory in memories.items() if "[[" in memory.body}
    return [
        *_expired(headers, today),
        *_duplicates(similarity),
        *_disagreements(similarity),
        *_dangling(headers, bodies),
    ]
