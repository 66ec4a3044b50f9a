"""Regular expressions compiled on first use.

Every Claude Code hook is a new process, and compiling an expression whose character classes
span much of Unicode costs a good part of a millisecond. A module-level :class:`LazyPattern`
reads like a compiled pattern at its call sites and compiles when one of them first runs, so a
process that never parses frontmatter or non-ASCII text (a hook whose headers and analyses come
from the derived caches) never pays for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

__all__ = ["LazyPattern"]


class LazyPattern:
    """The methods of ``re.compile(source, flags)`` that memdir uses, compiling on the first call."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(text, pos)

    def fullmatch(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.fullmatch(text, pos)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(text, pos)

    def findall(self, text: str) -> list[str]:
        return self.compiled.findall(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.compiled.sub(replacement, text)
