"""Markdown clean-up applied before an instruction or index file reaches a model.

HTML comments at block level are notes for humans ("<!-- keep sorted -->"); Claude Code drops
them before loading a file into context, and memdir does the same so that both show a model the
same text. Comments inside a paragraph or a code block are content and stay; an unclosed
``<!--`` is kept too, because dropping the rest of the file would lose real instructions.
"""

from __future__ import annotations

import re

__all__ = ["strip_block_html_comments"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_COMMENT_START = re.compile(r"^ {0,3}<!--")


def strip_block_html_comments(text: str) -> str:
    """Remove HTML comments that start a block (a line of their own), outside fenced code."""
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        fence_match = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            index += 1
            continue
        if fence_match:
            fence = fence_match.group(1)
            out.append(line)
            index += 1
            continue
        if _COMMENT_START.match(line):
            end = _find_comment_end(lines, index)
            if end is not None:
                end_line, rest = end
                if rest.strip():
                    out.append(rest)
                index = end_line + 1
                continue
        out.append(line)
        index += 1
    return "\n".join(out)


def _find_comment_end(lines: list[str], start: int) -> tuple[int, str] | None:
    """(line index, text after ``-->``) of the comment opened on ``lines[start]``, or None if unclosed."""
    first = lines[start]
    opened = first.index("<!--") + 4
    position = first.find("-->", opened)
    if position >= 0:
        return start, first[position + 3 :]
    for index in range(start + 1, len(lines)):
        position = lines[index].find("-->")
        if position >= 0:
            return index, lines[index][position + 3 :]
    return None
