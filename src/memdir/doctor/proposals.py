"""What ``memdir doctor`` tells about a store's contents rather than its format: information, not errors.

- memories past their ``expires:`` date (kept on disk, no longer recalled);
- memories that say the same nearly word for word, with the merge that combines them;
- pairs whose names say they may be versions of one subject (:func:`memdir.recall.versions.named_pairs`)
  with no recorded relation: doctor proposes, a person decides, with one of three answers (merge
  them, record that the newer replaces the older, or record that they are different facts, after
  which the pair is never proposed again). Shared words alone never make a pair: two facts written
  alike ("Checkout timeout" / "Search timeout") are two facts;
- ``[[links]]`` and recorded relations that point at no memory (fine to write ahead of the memory;
  worth knowing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from memdir.model.memory import Memory
from memdir.model.timefields import is_expired
from memdir.recall.versions import decided_distinct, named_pairs
from memdir.store.links import LinkResolver, find_links
from memdir.store.scan import MemoryHeader
from memdir.writes.near import Similarity

__all__ = ["Note", "Proposal", "proposals", "store_notes"]


class Note(NamedTuple):
    file: str
    line: int | None
    rule: str
    message: str


class Proposal(NamedTuple):
    """Two memories a person should decide about: ``older`` and ``newer`` (by their time), and why
    doctor proposes them (``identical``: the same words; ``same-subject``: their names)."""

    older: MemoryHeader
    newer: MemoryHeader
    reason: str

    def answers(self) -> tuple[str, str, str]:
        """The three commands that settle the pair: merge, replaces, different facts."""
        older, newer = self.older.filename, self.newer.filename
        return (
            f"memdir merge {newer} {older}",
            f"memdir relate {newer} --replaces {older}",
            f"memdir relate {newer} --different {older}",
        )


def _expired(headers: Sequence[MemoryHeader], today: str) -> list[Note]:
    return [
        Note(h.filename, None, "expired", f"expired on {h.expires}: no longer recalled; delete it or move the date")
        for h in headers
        if is_expired(h.expires, today)
    ]


def proposals(headers: Sequence[MemoryHeader]) -> list[Proposal]:
    """The pairs doctor proposes: memories nearly identical to each other (each to the newest of its
    group), then those whose names say one subject; a pair is proposed once."""
    found: list[Proposal] = []
    seen: set[frozenset[str]] = set()
    for cluster in Similarity(headers).clusters():
        newest = max(cluster, key=lambda h: (h.time_ms, h.filename))
        for other in cluster:
            if other is not newest and not decided_distinct(other, newest):
                found.append(Proposal(other, newest, "identical"))
                seen.add(frozenset((other.path, newest.path)))
    for older, newer in named_pairs(headers):
        if frozenset((older.path, newer.path)) not in seen:
            found.append(Proposal(older, newer, "same-subject"))
    return found


def _proposal_note(proposal: Proposal) -> Note:
    merge, replaces, different = proposal.answers()
    older, newer = proposal.older, proposal.newer
    # The note is the older memory's, and says so by its file; the message names the other one.
    if proposal.reason == "identical":
        said = f"says the same word for word as the newer {newer.filename}"
    else:
        said = f"may be an older version of the newer {newer.filename} (their names say one subject)"
    message = f"{said}; decide: {merge} (one memory), {replaces} (keep both, the newer first), or {different}"
    return Note(older.filename, None, proposal.reason, message)


def _dangling(headers: Sequence[MemoryHeader], bodies: Mapping[str, str]) -> list[Note]:
    resolver = LinkResolver(headers)
    notes: list[Note] = []
    for file, body in bodies.items():
        for link in find_links(body):
            if resolver.resolve(link.target) is None:
                message = f"[[{link.target}]] points at no memory yet (a link may be written before its memory)"
                notes.append(Note(file, None, "dangling-link", message))
    for header in headers:
        for key, targets in (("replaces", header.replaces), ("distinct-from", header.distinct)):
            for target in targets:
                if resolver.resolve(target) is None:
                    message = f"{key}: {target} names no memory (deleted or renamed?); the relation does nothing"
                    notes.append(Note(header.filename, None, "dangling-relation", message))
    return notes


def store_notes(
    headers: Sequence[MemoryHeader], memories: Mapping[str, Memory], today: str, pairs: Sequence[Proposal]
) -> list[Note]:
    """Every note about a store whose memories are ``headers`` (read in full: ``memories``), the
    pairs doctor proposes for it (:func:`proposals`) among them."""
    bodies = {file: memory.body for file, memory in memories.items() if "[[" in memory.body}
    return [
        *_expired(headers, today),
        *(_proposal_note(proposal) for proposal in pairs),
        *_dangling(headers, bodies),
    ]
