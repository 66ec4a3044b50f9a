"""``@path`` includes inside instruction files, and which files count as text.

Claude Code finds includes with the ``marked`` lexer: only text tokens are scanned, so an ``@x``
inside a fenced or indented code block or a code span is not an include, and in HTML comment
blocks only what is left after removing the comments is scanned. memdir does not carry a full
CommonMark lexer; it approximates the tokens that matter with a line scanner:

* fenced blocks (```` ``` ```` or ``~~~``, closed by a fence of the same kind at least as long, or
  by the end of the file) and indented blocks (4 spaces or a tab after a blank line, or at the
  start of the file) are skipped;
* code spans (a run of N backticks closed by the next run of exactly N) split the text, so
  ``x`code`@a.md`` still sees ``@a.md`` at the start of a text token, as marked does;
* ``<!-- ... -->`` comments split the text the same way; a comment left open at the start of a
  line hides the rest of the file from include scanning (the text itself is kept).

Differences with marked are possible in rare cases (an indented block inside a list item, HTML
blocks other than comments, link destinations), and are documented in docs/instructions.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from memdir.containment import resolve_lexical, spell_lexical

__all__ = ["TEXT_EXTENSIONS", "expand_include_path", "extract_include_paths", "is_text_file", "text_segments"]

# Extensions Claude Code will read as instruction text; anything else (images, archives, binaries)
# would put noise or garbage into the context. A file without an extension counts as text.
TEXT_EXTENSIONS = frozenset(
    {
        ".md", ".txt", ".text", ".markdown", ".mdx", ".rst", ".adoc", ".org",
        ".json", ".jsonc", ".json5", ".yaml", ".yml", ".toml", ".xml", ".csv", ".tsv", ".ini", ".cfg",
        ".conf", ".config", ".properties", ".env",
        ".html", ".htm", ".css", ".scss", ".sass", ".less", ".svg",
        ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte", ".astro",
        ".py", ".pyi", ".rb", ".go", ".rs", ".java", ".kt", ".kts", ".scala", ".groovy", ".gradle",
        ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm", ".cs", ".fs", ".swift",
        ".php", ".pl", ".pm", ".lua", ".r", ".jl", ".dart", ".ex", ".exs", ".erl", ".hs", ".clj",
        ".elm", ".ml", ".mli", ".nim", ".zig", ".v", ".sol",
        ".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd",
        ".sql", ".graphql", ".gql", ".proto", ".tf", ".hcl", ".nix", ".dockerfile", ".mk", ".cmake",
        ".lock", ".log", ".diff", ".patch", ".tex", ".bib",
    }
)  # fmt: skip

_INCLUDE = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_TICKS = re.compile(r"`+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_BLOCK_COMMENT_START = re.compile(r"^ {0,3}<!--", re.MULTILINE)
_VALID_START = re.compile(r"^[a-zA-Z0-9._-]")
_PUNCT_ONLY = re.compile(r"^[#%^&*()]+")


def is_text_file(path: str) -> bool:
    extension = os.path.splitext(path)[1].lower()
    return not extension or extension in TEXT_EXTENSIONS


def _prose_blocks(text: str) -> Iterator[str]:
    """The runs of lines outside fenced and indented code blocks."""
    fence: str | None = None
    indented = False
    current: list[str] = []
    for line in text.split("\n"):
        if fence is not None:
            stripped = line.lstrip(" ")
            closes = len(line) - len(stripped) <= 3 and stripped.startswith(fence)
            if closes and not stripped.strip(fence[0]).strip():
                fence = None
            continue
        if indented:
            if not line.strip() or _INDENTED.match(line):
                continue
            indented = False
        opened = _FENCE_OPEN.match(line)
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            yield "\n".join(current)
            current = []
            continue
        in_paragraph = bool(current) and bool(current[-1].strip())
        if line.strip() and _INDENTED.match(line) and not in_paragraph:
            indented = True
            yield "\n".join(current)
            current = []
            continue
        current.append(line)
    yield "\n".join(current)


def _split_code_spans(text: str) -> Iterator[str]:
    position = 0
    cursor = 0
    while True:
        opening = _TICKS.search(text, cursor)
        if opening is None:
            break
        run = opening.group(0)
        closing = opening.end()
        while True:
            candidate = _TICKS.search(text, closing)
            if candidate is None or candidate.group(0) == run:
                break
            closing = candidate.end()
        if candidate is None:
            cursor = opening.end()
            continue
        yield text[position : opening.start()]
        position = candidate.end()
        cursor = position
    yield text[position:]


def text_segments(text: str) -> Iterator[str]:
    """The pieces of ``text`` that marked would hand over as text tokens (see module docstring)."""
    for block in _prose_blocks(text):
        for start in _BLOCK_COMMENT_START.finditer(block):
            if "-->" not in block[start.end() :]:
                block = block[: start.start()]
                break
        for piece in _COMMENT.split(block):
            yield from _split_code_spans(piece)


def _valid_include(path: str) -> bool:
    if path.startswith(("./", "~/")):
        return True
    if path.startswith("/"):
        return path != "/"
    return not path.startswith("@") and not _PUNCT_ONLY.match(path) and bool(_VALID_START.match(path))


def expand_include_path(path: str, base_dir: str, *, home: str) -> str:
    """Resolve an include the way Claude Code's ``expandPath`` does: ``~`` is the home directory,
    relative paths are taken from the including file's (resolved) directory."""
    if path == "~":
        path = home
    elif path.startswith("~/"):
        path = home + path[1:]
    return spell_lexical(path if path.startswith("/") else resolve_lexical(base_dir, path))


def extract_include_paths(text: str, base_dir: str, *, home: str) -> list[str]:
    """Absolute paths of the ``@includes`` in ``text``, first occurrence first, no duplicates."""
    found: dict[str, None] = {}
    for segment in text_segments(text):
        for match in _INCLUDE.finditer(segment):
            raw = match.group(1)
            hash_at = raw.find("#")
            if hash_at >= 0:
                raw = raw[:hash_at]
            raw = raw.replace("\\ ", " ")
            if raw and _valid_include(raw):
                found.setdefault(expand_include_path(raw, base_dir, home=home), None)
    return list(found)
