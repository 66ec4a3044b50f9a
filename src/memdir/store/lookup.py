"""Finding the memory a person or a model meant: a file name with or without ``.md``, or a title.

``memdir show feedback_integration_tests``, ``memdir rm "Real DB in tests"`` and an MCP ``read``
of either all name one memory; a near miss gets the closest names back ("did you mean …?")
instead of a bare "not found".
"""

from __future__ import annotations

import difflib
from typing import Protocol

from memdir.errors import MemoryNotFound
from memdir.store.scan import MemoryHeader

__all__ = ["Findable", "find_memory", "suggest"]


class Findable(Protocol):
    """What finding a memory by name reads of a directory (:class:`memdir.store.directory.MemoryDir`)."""

    root: str

    @property
    def path(self) -> str: ...

    def resolve(self, file: str) -> str: ...

    def relative(self, path: str) -> str: ...

    def exists(self, file: str) -> bool: ...

    def headers(self) -> list[MemoryHeader]: ...


def suggest(given: str, choices: list[str], *, limit: int = 3) -> str:
    """``; did you mean X or Y?`` for the choices close to ``given``, else ""."""
    close = difflib.get_close_matches(given, choices, n=limit, cutoff=0.6)
    if not close:
        lowered = given.casefold()
        close = [choice for choice in choices if lowered and lowered in choice.casefold()][:limit]
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(choice) for choice in close) + "?"


def find_memory(memory_dir: Findable, given: str) -> str:
    """The relative file of the memory ``given`` names: the file as given, with ``.md`` added, or a
    memory whose title is ``given`` (any case). Raises :class:`MemoryNotFound` with the nearest
    names when there is none."""
    text = given.strip()
    if text.startswith(memory_dir.path):
        text = text[len(memory_dir.path) :]
    for candidate in [text] if text.endswith(".md") else [text, text + ".md"]:
        if candidate.endswith(".md") and memory_dir.exists(candidate):
            return memory_dir.relative(memory_dir.resolve(candidate))
    headers = memory_dir.headers()
    lowered = text.casefold()
    for header in headers:
        if header.name is not None and header.name.strip().casefold() == lowered:
            return header.filename
    names = [header.filename for header in headers]
    stems = {name.removesuffix(".md"): name for name in names}
    titles = {header.name.strip(): header.filename for header in headers if header.name}
    hint = suggest(text.removesuffix(".md"), [*stems, *titles])
    raise MemoryNotFound(f"no memory file {given!r} in {memory_dir.root}{hint}", path=given)
