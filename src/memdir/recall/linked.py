"""Linked memories in recall: a memory that a surfaced one links to, when it bears on the message.

Claude Code (2.1.330 on) asks its agent to split knowledge across memories and link them with
``[[name]]``: "the checkout API retries through the queue, see [[payments-retry-policy]]", the
figures living in the linked memory. A question about the checkout API's retries matches the first
memory on its words and may miss the second, which names neither the checkout API nor retries in
the question's words. So after a selector has chosen, each chosen memory's links (in the start of
its body, as the scan keeps it) are resolved in the store, and a linked memory is put right after
the one that links to it when it shares a word with the message: a link to a memory about
something else entirely (a team's style guide linked from every memory) is left out.

What recall surfaces stays within its limit: a linked memory takes the place of the lowest-ranked
choice. Links are followed one step, never from a memory that was itself added by a link.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memdir.model.analysis import tokenize
from memdir.recall.selector_protocol import Query
from memdir.store.links import LinkResolver, find_links
from memdir.store.scan import MemoryHeader

__all__ = ["with_linked"]

_BODY_CHARS = 1500  # as much of the body as the lexical ranking reads


def _bears_on(asked: frozenset[str], header: MemoryHeader) -> bool:
    text = f"{header.name or ''}\n{header.description or ''}\n{header.preview[:_BODY_CHARS]}"
    return bool(asked & frozenset(tokenize(text)))


def with_linked(
    query: Query,
    files: Sequence[str],
    by_name: Mapping[str, MemoryHeader],
    pool: Sequence[MemoryHeader],
    *,
    limit: int,
    skip: frozenset[str] = frozenset(),
) -> tuple[str, ...]:
    """``files`` (chosen memories, best first) with, right after each, the memories of ``pool`` it
    links to that bear on ``query``, at most ``limit`` in all. ``skip``: paths never added (already
    surfaced in this conversation, expired)."""
    chosen = [by_name[file] for file in files if file in by_name]
    if not any("[[" in header.preview for header in chosen):
        return tuple(files[:limit])
    resolver = LinkResolver(pool)
    asked = frozenset(query.terms)
    taken = {header.path for header in chosen}
    out: list[str] = []
    for header in chosen:
        out.append(header.filename)
        if "[[" not in header.preview:
            continue
        for link in find_links(header.preview[:_BODY_CHARS]):
            target = resolver.resolve(link.target)
            if target is None or target.path in taken or target.path in skip or not _bears_on(asked, target):
                continue
            taken.add(target.path)
            out.append(target.filename)
    return tuple(out[:limit])  # an added memory displaces the lowest-ranked choices
