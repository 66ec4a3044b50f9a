"""Combining two memories into one, and keeping ``[[links]]`` working when a memory moves.

``merge(A, B)``: A keeps its file, name and description; its body gains B's text under a line
naming where it came from (and B's description, when it says something A's does not); B leaves
``MEMORY.md`` and the directory. Every write goes through the store, so the local history holds
both texts as they were and ``memdir undo`` brings them back. Links that reached B now reach A.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import NamedTuple

from memdir.errors import MemoryFormatError
from memdir.model.memory import Memory
from memdir.store.directory import MemoryDir
from memdir.store.links import LinkResolver, find_links, link_key, rewrite_links
from memdir.store.relations import repoint_relations

__all__ = ["MergeResult", "merge_memories", "relink"]


class MergeResult(NamedTuple):
    kept: str  # the file that holds both now
    removed: str  # the file merged into it and deleted
    relinked: tuple[str, ...]  # other memories whose links were pointed at the kept one


def relink(directory: MemoryDir, keys: set[str], new_target: str, *, skip: frozenset[str] = frozenset()) -> list[str]:
    """Point every link whose key is in ``keys`` at ``new_target``, in every memory but ``skip``;
    returns the files changed."""
    changed: list[str] = []
    for header in directory.headers():
        if header.filename in skip:
            continue
        text = directory.read_text(header.filename)
        if "[[" not in text or not any(link_key(link.target) in keys for link in find_links(text)):
            continue
        directory.update_text(header.filename, lambda current: rewrite_links(current, sorted(keys), new_target))
        changed.append(header.filename)
    return changed


def _link_name(file: str, memory: Memory) -> str:
    """How links should name a memory: its ``name:``, else its file stem."""
    return memory.name or os.path.basename(file).removesuffix(".md")


def merge_memories(directory: MemoryDir, keep: str, absorb: str) -> MergeResult:
    """Merge ``absorb`` into ``keep`` (see the module's docstring)."""
    kept = directory.read(keep)
    gone = directory.read(absorb)
    if kept.path == gone.path:
        raise MemoryFormatError(f"cannot merge {kept.file} into itself", rule="merge-self", path=kept.path)
    first = Memory.parse(kept.text)
    second = Memory.parse(gone.text)
    origin = f"Merged from {gone.file}" + (f" ({second.name})" if second.name else "")
    parts = [first.body.rstrip("\n"), f"{origin}:"]
    if second.description and second.description != first.description:
        parts.append(second.description)
    if second.body.strip():
        parts.append(second.body.strip("\n"))
    merged = replace(first, body="\n\n".join(part for part in parts if part) + "\n")
    directory.save(merged, file=kept.file, force=True)
    resolver = LinkResolver(directory.headers())
    keys = {link_key(gone.file)}
    if second.name:
        keys.add(link_key(second.name))
    # A key that still names another memory (a name the kept one shares, say) is left alone.
    keys = {key for key in keys if (found := resolver.resolve(key)) is None or found.path == gone.path}
    relinked = relink(directory, keys, _link_name(kept.file, first), skip=frozenset({gone.file}))
    # "X replaces the absorbed one" now means X replaces the merged one; the merged one's own
    # relation to what it absorbed goes.
    repoint_relations(directory, keys, kept.file, skip=frozenset({gone.file}))
    directory.delete(gone.file)
    return MergeResult(kept=kept.file, removed=gone.file, relinked=tuple(relinked))
