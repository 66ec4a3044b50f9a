"""Glob patterns of instruction files: ``paths:`` frontmatter and ``claudeMdExcludes``.

Claude Code matches both with picomatch. memdir covers the part of picomatch that these settings
use in practice — ``*``, ``**`` (any number of path segments, including none), ``?``, character
classes ``[...]`` and brace alternatives ``{a,b}`` — with dot files matched (picomatch's
``dot: true``). Extglobs (``+(a|b)``) and POSIX classes are not supported: such characters are
taken literally.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

__all__ = ["expand_braces", "glob_matches", "glob_regex", "is_glob", "split_paths_frontmatter", "static_prefix"]

_GLOB_CHARS = frozenset("*?[{")


def is_glob(pattern: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in pattern)


def static_prefix(pattern: str) -> str:
    """The leading path segments of ``pattern`` that hold no glob character."""
    parts = pattern.split("/")
    kept: list[str] = []
    for part in parts:
        if is_glob(part):
            break
        kept.append(part)
    return "/".join(kept)


def _split_outside_braces(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def expand_braces(pattern: str) -> list[str]:
    """``src/{a,b}/*.ts`` -> ``["src/a/*.ts", "src/b/*.ts"]``; nested braces expand too."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    depth = 0
    for index in range(start, len(pattern)):
        if pattern[index] == "{":
            depth += 1
        elif pattern[index] == "}":
            depth -= 1
            if depth == 0:
                inner = pattern[start + 1 : index]
                head, tail = pattern[:start], pattern[index + 1 :]
                options = _split_outside_braces(inner)
                if len(options) < 2:
                    return [head + "{" + inner + "}" + rest for rest in expand_braces(tail)]
                expanded: list[str] = []
                for option in options:
                    expanded.extend(expand_braces(head + option + tail))
                return expanded
    return [pattern]


def split_paths_frontmatter(value: object) -> list[str]:
    """The ``paths:`` value of a rule file as a flat list of brace-expanded, trimmed patterns.

    A string is split on commas outside braces; a list is flattened. Anything else gives nothing,
    so a malformed ``paths:`` leaves the rule unconditional rather than failing the whole chain.
    """
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            out.extend(split_paths_frontmatter(item))
        return out
    if not isinstance(value, str):
        return []
    patterns: list[str] = []
    for part in _split_outside_braces(value):
        for expanded in expand_braces(part.strip()):
            stripped = expanded.strip()
            if stripped:
                patterns.append(stripped)
    return patterns


def _class(pattern: str, index: int) -> tuple[str, int] | None:
    end = index + 1
    if end < len(pattern) and pattern[end] in "!^":
        end += 1
    if end < len(pattern) and pattern[end] == "]":
        end += 1
    while end < len(pattern) and pattern[end] != "]":
        end += 1
    if end >= len(pattern):
        return None
    body = pattern[index + 1 : end]
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = body.replace("\\", "\\\\")
    return ("[^/" if negate else "[") + body + "]", end + 1


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regex that matches a whole ``/``-separated path against one brace-free pattern."""
    out: list[str] = []
    index = 0
    length = len(pattern)
    while index < length:
        ch = pattern[index]
        if ch == "*":
            if pattern.startswith("**", index):
                at_start = index == 0 or pattern[index - 1] == "/"
                after = index + 2
                if at_start and after == length:
                    out.append(".*")
                    index = after
                    continue
                if at_start and pattern[after : after + 1] == "/":
                    out.append("(?:.*/)?")
                    index = after + 1
                    continue
            out.append("[^/]*")
            while index < length and pattern[index] == "*":
                index += 1
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[":
            converted = _class(pattern, index)
            if converted is not None:
                out.append(converted[0])
                index = converted[1]
                continue
            out.append(re.escape(ch))
        elif ch == "\\" and index + 1 < length:
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(ch))
        index += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def glob_matches(path: str, patterns: Iterable[str] | Sequence[str]) -> bool:
    """Whether ``path`` (``/``-separated) matches any of ``patterns`` (braces allowed)."""
    for pattern in patterns:
        for expanded in expand_braces(pattern):
            if glob_regex(expanded).match(path):
                return True
    return False
