"""What the web view shows around one memory: its [[links]], the memories linking to it, its expiry.

Kept apart from the page handlers so the memory page gains one call; every file is read through
the store, and a file that cannot be read is simply left out of the backlinks.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from memdir.errors import MemdirError
from memdir.model.memory import Memory
from memdir.model.timefields import is_expired
from memdir.store.directory import MemoryDir
from memdir.store.links import LinkResolver, find_links

__all__ = ["LinkRow", "LinksPanel", "links_panel"]


class LinkRow(NamedTuple):
    target: str  # as written, or the linking memory's name for a backlink
    file: str | None  # the memory it reaches; None: it points at no memory yet


class LinksPanel(NamedTuple):
    links: tuple[LinkRow, ...]
    backlinks: tuple[LinkRow, ...]
    expires: str | None
    expired: bool


def links_panel(directory: MemoryDir, file: str, memory: Memory) -> LinksPanel:
    headers = directory.headers()
    resolver = LinkResolver(headers)
    links: list[LinkRow] = []
    for link in find_links(memory.body):
        found = resolver.resolve(link.target)
        row = LinkRow(link.target, found.filename if found is not None else None)
        if row not in links:
            links.append(row)
    backlinks: list[LinkRow] = []
    for header in headers:
        if header.filename == file:
            continue
        try:
            text = directory.read_text(header.filename)
        except (MemdirError, OSError):
            continue
        if "[[" not in text:
            continue
        reached = (resolver.resolve(link.target) for link in find_links(text))
        if any(target is not None and target.filename == file for target in reached):
            backlinks.append(LinkRow(header.name or header.filename, header.filename))
    current = next((h for h in headers if h.filename == file), None)
    expires = current.expires if current is not None else None
    return LinksPanel(tuple(links), tuple(backlinks), expires, is_expired(expires, time.strftime("%Y-%m-%d")))
