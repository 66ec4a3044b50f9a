"""Fail when a run of code stands in two places: the duplicate-code check of ``make lint``.

A run is ``--min-lines`` (default 8) or more lines that read the same, after leaving out what
repeats for no fault of the code: blank lines, comments, docstrings, imports, function signatures,
lines of lone brackets or of a lone string (a name in a list such as ``__all__``), and
indentation. Each place is reported once, as ``a.py:10-24 ~ b.py:40-54``, with the
longest run of each pair; the fix is one function both places call. Pure standard library and a
single pass over hashed windows, so it reads the whole source in well under a second.

Usage: ``python scripts/check_duplicates.py [--min-lines N] [PATH ...]`` (default: ``src``).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

__all__ = ["Duplicate", "find_duplicates", "main", "significant_lines"]

_PUNCTUATION = frozenset("()[]{},:; ")
_LONE_STRING = re.compile(r"""("[^"]*"|'[^']*'),?""")


class Duplicate(NamedTuple):
    """The same ``length`` significant lines at ``first`` and ``second`` (path, first line, last line)."""

    first: tuple[str, int, int]
    second: tuple[str, int, int]
    length: int

    def __str__(self) -> str:
        (a, a_start, a_end), (b, b_start, b_end) = self.first, self.second
        return f"{a}:{a_start}-{a_end} ~ {b}:{b_start}-{b_end} ({self.length} lines)"


def _skipped_lines(tree: ast.Module) -> set[int]:
    """Line numbers taken by imports, docstrings (module, class, function) and the signatures of
    functions (an implementation repeats its protocol's, a sync function its async twin's)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            skipped.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skipped.update(range(node.lineno, node.body[0].lineno))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                skipped.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return skipped


def significant_lines(text: str) -> list[tuple[int, str]]:
    """(line number, stripped text) of the lines that count, in order."""
    skipped = _skipped_lines(ast.parse(text))
    kept = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if number in skipped or not stripped or stripped.startswith("#") or set(stripped) <= _PUNCTUATION:
            continue
        if _LONE_STRING.fullmatch(stripped):
            continue
        kept.append((number, stripped))
    return kept


def find_duplicates(files: dict[str, str], min_lines: int) -> list[Duplicate]:
    """Every pair of places that share ``min_lines`` or more significant lines in a row."""
    lines = {path: significant_lines(text) for path, text in sorted(files.items())}
    windows: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for path, kept in lines.items():
        texts = [text for _, text in kept]
        for start in range(len(texts) - min_lines + 1):
            windows[tuple(texts[start : start + min_lines])].append((path, start))
    # a pair of places, and how far apart (in significant lines) their windows start: one run
    runs: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    for places in windows.values():
        for index, (a, a_start) in enumerate(places):
            for b, b_start in places[index + 1 :]:
                if a == b and b_start - a_start < min_lines:
                    continue  # a repetitive stretch overlapping itself
                runs[(a, b, b_start - a_start)].append(a_start)
    found = []
    for (a, b, offset), starts in runs.items():
        starts.sort()
        begin = previous = starts[0]
        for start in [*starts[1:], None]:
            if start is not None and start == previous + 1:
                previous = start
                continue
            end = previous + min_lines - 1
            first = (a, lines[a][begin][0], lines[a][end][0])
            second = (b, lines[b][begin + offset][0], lines[b][end + offset][0])
            found.append(Duplicate(first, second, end - begin + 1))
            if start is not None:
                begin = previous = start
    return sorted(found, key=lambda duplicate: (-duplicate.length, duplicate.first))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["src"])
    parser.add_argument("--min-lines", type=int, default=8)
    arguments = parser.parse_args(argv)
    files = {
        str(path): path.read_text(encoding="utf-8")
        for root in arguments.paths
        for path in ([Path(root)] if Path(root).is_file() else sorted(Path(root).rglob("*.py")))
    }
    duplicates = find_duplicates(files, arguments.min_lines)
    for duplicate in duplicates:
        print(duplicate)
    if duplicates:
        print(f"{len(duplicates)} duplicated run(s) of {arguments.min_lines}+ lines: write it once and call it")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
