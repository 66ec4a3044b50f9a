"""``[[name]]`` links between memories: finding them, resolving them, keeping them working.

Claude Code (2.1.330 on) asks its agent to link related memories with ``[[name]]`` in the body,
where ``name`` is the other memory's ``name:`` (a short kebab-case slug) and a link to a memory
that does not exist yet is fine. A link resolves to the memory whose ``name:`` or file stem
matches, ignoring case and treating spaces, ``-`` and ``_`` alike; ``[[name|shown text]]`` and
``[[name#part]]`` resolve by the part before ``|`` or ``#``. A link that matches nothing is
*dangling*: worth knowing (doctor lists it as information), never an error.

When a memory moves (``memdir mv``) or is merged into another (``memdir merge``), links that
reached it by its file stem are rewritten to reach it again; links by ``name:`` keep working as
long as the name does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from memdir.store.scan import MemoryHeader

__all__ = ["LINK", "Link", "LinkResolver", "find_links", "link_key", "rewrite_links"]

LINK = re.compile(r"\[\[([^\[\]\n|#]{1,200})((?:#[^\[\]\n|]*)?)((?:\|[^\[\]\n]*)?)\]\]")
_SEPARATORS = re.compile(r"[\s_-]+")


class Link(NamedTuple):
    target: str  # the name as written inside the brackets
    line: int  # 1-based line of the body text it was found in


def link_key(text: str) -> str:
    """What two spellings of one link have in common: case, ``.md``, spaces, ``-`` and ``_`` aside."""
    cleaned = text.strip()
    if cleaned.lower().endswith(".md"):
        cleaned = cleaned[:-3]
    cleaned = cleaned.rsplit("/", 1)[-1]
    return _SEPARATORS.sub("-", cleaned).strip("-").casefold()


def find_links(text: str) -> list[Link]:
    """Every ``[[...]]`` link in ``text``, in order (code spans and fences included: cheap and rare)."""
    found: list[Link] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if "[[" not in line:
            continue
        found.extend(Link(match.group(1).strip(), number) for match in LINK.finditer(line) if match.group(1).strip())
    return found


class LinkResolver:
    """Links to memories of one store, resolved by ``name:`` first, then by file stem."""

    def __init__(self, headers: Iterable[MemoryHeader]) -> None:
        self.headers = list(headers)
        self._by_name: dict[str, MemoryHeader] = {}
        self._by_stem: dict[str, MemoryHeader] = {}
        for header in self.headers:
            if header.name:
                self._by_name.setdefault(link_key(header.name), header)
            self._by_stem.setdefault(link_key(header.filename), header)

    def resolve(self, target: str) -> MemoryHeader | None:
        key = link_key(target)
        return self._by_name.get(key) or self._by_stem.get(key)

    def by_stem_only(self, target: str) -> MemoryHeader | None:
        """The memory ``target`` reaches by its file stem and not by any memory's name."""
        key = link_key(target)
        return None if key in self._by_name else self._by_stem.get(key)


def rewrite_links(text: str, keys: Sequence[str], new_target: str) -> str:
    """``text`` with every link whose key is one of ``keys`` pointing at ``new_target`` instead
    (an anchor and a shown text are kept)."""
    wanted = set(keys)

    def replace(match: re.Match[str]) -> str:
        if link_key(match.group(1)) not in wanted:
            return match.group(0)
        return f"[[{new_target}{match.group(2)}{match.group(3)}]]"

    return LINK.sub(replace, text)
