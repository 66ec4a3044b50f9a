"""Checking a memory directory for everything that would make memory silently fail.

A memory that recall cannot describe, an index line pointing nowhere, a symlink out of the
directory, a file that is not UTF-8: each is reported with the file, the line when there is
one, a stable rule id and a fix. ``fix`` repairs only the index (adds missing lines, drops
lines to missing files); it never deletes or rewrites a memory.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass

from memdir.errors import MemdirError
from memdir.model.index import (
    ENTRYPOINT_NAME,
    IndexEntry,
    parse_entries,
    remove_entry,
    truncate_entrypoint_content,
    upsert_entry,
)
from memdir.model.memory import Memory, decode_memory_bytes
from memdir.store.files import MAX_MEMORY_FILE_BYTES
from memdir.store.memdir import MemoryDir
from memdir.store.scan import HEADER_LINES

__all__ = ["DoctorReport", "Problem", "check_memory_dir"]

_FRONTMATTER_OPEN = re.compile(r"^---\s*\n")
_FRONTMATTER_BLOCK = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    rule: str
    message: str

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class DoctorReport:
    problems: tuple[Problem, ...]
    fixed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def _walk(root: str) -> list[str]:
    """Every ``.md`` path under root (relative), symlinks included so that bad ones are reported."""
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(directory, d))]
        for name in filenames:
            if name.endswith(".md"):
                found.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    return sorted(found)


def _check_file(memory_dir: MemoryDir, rel: str) -> tuple[list[Problem], Memory | None]:
    path = os.path.join(memory_dir.root, rel)
    if os.path.islink(path):
        target = os.path.realpath(path)
        if not os.path.exists(target):
            return [Problem(rel, None, "dangling-symlink", f"{rel} is a symlink to a missing file; remove it")], None
        if not target.startswith(os.path.realpath(memory_dir.root) + os.sep):
            message = f"{rel} is a symlink to {target}, outside the memory directory; recall ignores it"
            return [Problem(rel, None, "symlink-escape", message)], None
    try:
        size = os.stat(path).st_size
        if size > MAX_MEMORY_FILE_BYTES:
            message = f"{rel} is {size} bytes (limit {MAX_MEMORY_FILE_BYTES}); split it into smaller topic files"
            return [Problem(rel, None, "too-large", message)], None
        with open(path, "rb") as handle:
            data = handle.read()
        text = decode_memory_bytes(data, path=rel)
    except MemdirError as exc:
        line = _line_of_offset(data, exc) if exc.rule == "encoding" else None
        return [Problem(rel, line, exc.rule, exc.message)], None
    except OSError as exc:
        return [Problem(rel, None, "unreadable", f"{rel} cannot be read: {exc.strerror}")], None
    if os.path.basename(rel) == ENTRYPOINT_NAME:
        return [], None
    return _check_frontmatter(rel, text), Memory.parse(text)


def _line_of_offset(data: bytes, exc: MemdirError) -> int | None:
    match = re.search(r"byte (?:offset )?(\d+)", exc.message)
    if not match:
        return None
    return data[: int(match.group(1))].count(b"\n") + 1


def _check_frontmatter(rel: str, text: str) -> list[Problem]:
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not _FRONTMATTER_OPEN.match(text):
        return [
            Problem(
                rel,
                1,
                "no-frontmatter",
                f"{rel} has no frontmatter; recall cannot describe it. "
                "Start the file with ---, name:, description:, type:, ---",
            )
        ]
    block = _FRONTMATTER_BLOCK.match(text)
    if block is None:
        return [Problem(rel, 1, "unclosed-frontmatter", f"{rel}: the frontmatter block is never closed with ---")]
    closing_line = text[: block.end()].rstrip("\n").count("\n") + 1
    problems: list[Problem] = []
    if closing_line > HEADER_LINES:
        problems.append(
            Problem(
                rel,
                closing_line,
                "frontmatter-too-long",
                f"{rel}: the frontmatter closes on line {closing_line}; only the first "
                f"{HEADER_LINES} lines are scanned, so recall sees no description. Shorten it",
            )
        )
    memory = Memory.parse(text)
    if (
        block.group(1).strip()
        and memory.name is None
        and memory.description is None
        and memory.type is None
        and not memory.extra
    ):
        problems.append(
            Problem(
                rel,
                2,
                "yaml",
                f"{rel}: the frontmatter is not valid YAML; quote values that contain ': ', '#', braces or brackets",
            )
        )
        return problems
    for rule, message in memory.problems():
        problems.append(Problem(rel, None, rule, f"{rel}: {message}"))
    return problems


def _indexed_by(rel: str, base: str) -> bool:
    """Team files belong to team/MEMORY.md, daily logs to no index, everything else to the root index."""
    top = rel.split("/", 1)[0] if "/" in rel else ""
    if base == "team":
        return top == "team"
    return top not in ("team", "logs")


def _check_index(
    memory_dir: MemoryDir, index_rel: str, memories: dict[str, Memory], fix: bool
) -> tuple[list[Problem], list[str]]:
    """Problems of one MEMORY.md against the topic files it should list (relative to its folder)."""
    index_path = os.path.join(memory_dir.root, index_rel)
    base = os.path.dirname(index_rel)
    text = memory_dir.index_text(index_path)
    problems: list[Problem] = []
    fixed: list[str] = []
    truncated = truncate_entrypoint_content(text)
    if truncated.was_truncated:
        problems.append(
            Problem(
                index_rel,
                None,
                "index-truncated",
                f"{index_rel} is {truncated.line_count} lines / {truncated.byte_count} characters; only "
                "the first 200 lines and 25,000 characters are loaded. Shorten entries or move detail "
                "into topic files",
            )
        )
    listed: set[str] = set()
    dangling: list[str] = []
    for line_number, entry in parse_entries(text):
        target = entry.file
        listed.add(target)
        full = f"{base}/{target}" if base else target
        if full not in memories and not os.path.exists(os.path.join(memory_dir.root, full)):
            problems.append(
                Problem(
                    index_rel,
                    line_number,
                    "index-dangling",
                    f"{index_rel} line {line_number} points to {target}, which does not exist",
                )
            )
            dangling.append(target)
    missing = []
    for rel, memory in memories.items():
        if not _indexed_by(rel, base):
            continue
        target = rel[len(base) + 1 :] if base else rel
        if target not in listed:
            problems.append(Problem(rel, None, "index-missing", f"{rel} is not listed in {index_rel}"))
            missing.append((target, memory))
    if fix and (dangling or missing):

        def change(current: str) -> str:
            for target in dangling:
                current = remove_entry(current, target)
            for target, memory in missing:
                if memory.name and memory.description:
                    current = upsert_entry(current, IndexEntry(memory.name, target, memory.description))
            return current

        if memory_dir.rewrite_index(change, index_path=index_path):
            fixed.append(index_rel)
    return problems, fixed


def check_memory_dir(memory_dir: MemoryDir, *, fix: bool = False) -> DoctorReport:
    """Every problem in the directory; with ``fix``, repair the indexes first and report what is left."""
    if not os.path.isdir(memory_dir.root):
        return DoctorReport(problems=())
    problems: list[Problem] = []
    memories: dict[str, Memory] = {}
    for rel in _walk(memory_dir.root):
        found, memory = _check_file(memory_dir, rel)
        problems.extend(found)
        if memory is not None:
            memories[rel] = memory
    indexes = [ENTRYPOINT_NAME]
    if os.path.isdir(os.path.join(memory_dir.root, "team")):
        indexes.append(f"team/{ENTRYPOINT_NAME}")
    fixed: list[str] = []
    index_problems: list[Problem] = []
    for index_rel in indexes:
        found, repaired = _check_index(memory_dir, index_rel, memories, fix)
        index_problems.extend(found)
        fixed.extend(repaired)
    if fixed:
        index_problems = []
        for index_rel in indexes:
            found, _ = _check_index(memory_dir, index_rel, memories, False)
            index_problems.extend(found)
    return DoctorReport(problems=tuple(problems + index_problems), fixed=tuple(fixed))
