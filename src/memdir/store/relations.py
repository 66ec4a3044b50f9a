"""Recording what someone decided about two memories, in the frontmatter of one of them.

"B replaces A" (``replaces:`` on B) and "A and B are different facts" (``distinct-from:`` on A)
are written by :func:`relate` through the store, so the local history records them and
``memdir undo`` takes them back; :func:`repoint_relations` keeps them working when a memory moves
or is merged into another, as :func:`memdir.store.merge.relink` does for ``[[links]]``.

Recording a relation says nothing new about the fact itself, so it keeps the memory's time: the
``modified:`` stamp is left as it was and the file's mtime is put back, or the memory would read as
saved today (and, for recall, as the newer of two versions).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import replace

from memdir.errors import MemoryFormatError
from memdir.model.memory import Memory
from memdir.model.relations import DISTINCT_KEY, RELATION_KEYS, REPLACES_KEY, relation_targets
from memdir.store.directory import MemoryDir
from memdir.store.links import link_key

__all__ = ["relate", "repoint_relations", "unrelate", "with_relation"]


def with_relation(memory: Memory, key: str, target: str) -> Memory:
    """``memory`` with ``target`` added to its ``key`` relation (written at the top level, as a list)."""
    present = list(relation_targets(memory.extra, key))
    if target in present:
        return memory
    return replace(memory, extra={**memory.extra, key: [*present, target]})


def _rewrite(directory: MemoryDir, file: str, change: Callable[[Memory], Memory]) -> bool:
    """Apply ``change`` to one memory's frontmatter under the lock, keeping its time; True when
    the memory changed."""
    changed = [False]

    def edit(text: str) -> str:
        before = Memory.parse(text)
        after = change(before)
        if after == before:
            return text
        changed[0] = True
        return after.render()

    path = directory.resolve(file)
    mtime_ns = os.stat(path).st_mtime_ns
    directory.update_text(file, edit)
    if changed[0]:
        os.utime(path, ns=(mtime_ns, mtime_ns))
    return changed[0]


def relate(directory: MemoryDir, file: str, key: str, other: str) -> bool:
    """Record in ``file``'s frontmatter that it ``replaces`` ``other``, or is ``distinct-from`` it
    (``key``); False when it was recorded already. Both are memory files of ``directory``, named as
    they are written in the relation (their file names relative to the directory)."""
    if key not in RELATION_KEYS:
        raise MemoryFormatError(f"unknown relation {key!r}; use {REPLACES_KEY} or {DISTINCT_KEY}", rule="relation")
    if directory.resolve(file) == directory.resolve(other):
        raise MemoryFormatError(f"{file} cannot be related to itself", rule="relation")
    return _rewrite(directory, file, lambda memory: with_relation(memory, key, other))


def _without(memory: Memory, keys: Collection[str], own: Collection[str] = ()) -> Memory:
    """``memory`` with every relation target whose link key is in ``keys`` or ``own`` taken out."""
    extra = dict(memory.extra)
    for key in RELATION_KEYS:
        targets = relation_targets(memory.extra, key)
        kept = [target for target in targets if link_key(target) not in keys and link_key(target) not in own]
        if len(kept) == len(targets):
            continue
        if kept:
            extra[key] = kept
        else:
            extra.pop(key, None)
    return replace(memory, extra=extra)


def unrelate(directory: MemoryDir, file: str, others: Collection[str]) -> bool:
    """Take ``others`` out of every relation ``file`` records; False when it recorded none of them."""
    keys = {link_key(other) for other in others}
    return _rewrite(directory, file, lambda memory: _without(memory, keys))


def repoint_relations(
    directory: MemoryDir, keys: Collection[str], new_target: str, *, skip: frozenset[str] = frozenset()
) -> list[str]:
    """Point every relation that names a memory by one of ``keys`` (link keys) at ``new_target``, in
    every memory but ``skip``; returns the files changed. A relation left naming the memory that
    holds it (the replaced memory merged into its replacement) is dropped."""
    wanted = set(keys)
    changed: list[str] = []
    for header in directory.headers():
        if header.filename in skip or not (header.replaces or header.distinct):
            continue
        if not any(link_key(target) in wanted for target in (*header.replaces, *header.distinct)):
            continue

        def repoint(memory: Memory, own: str = header.filename) -> Memory:
            extra = dict(memory.extra)
            for key in RELATION_KEYS:
                targets = relation_targets(memory.extra, key)
                if targets:
                    extra[key] = [new_target if link_key(target) in wanted else target for target in targets]
            names = {link_key(own)} | ({link_key(memory.name)} if memory.name else set())
            return _without(replace(memory, extra=extra), (), names)

        if _rewrite(directory, header.filename, repoint):
            changed.append(header.filename)
    return changed
