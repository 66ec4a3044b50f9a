"""Values describing one loaded instruction file, and how one file is read and cleaned.

Reading is separated from discovery so that both the chain (managed, user, project, local, index
files) and ``@include`` recursion go through the same steps: text-extension check, frontmatter
split (``paths:`` makes a rule conditional), block HTML comments removed, and the index
truncation for ``MEMORY.md`` files.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from dataclasses import dataclass, field
from enum import StrEnum

from memdir.instructions.globs import split_paths_frontmatter
from memdir.model.frontmatter import parse_frontmatter
from memdir.model.index import truncate_entrypoint_content
from memdir.model.markdown import strip_block_html_comments
from memdir.model.text import utf16_len

__all__ = [
    "MAX_INSTRUCTION_FILE_BYTES",
    "MAX_MEMORY_CHARACTER_COUNT",
    "InstructionFile",
    "InstructionType",
    "ParsedFile",
    "SkippedFile",
    "parse_instruction_text",
    "read_instruction_file",
]

log = logging.getLogger("memdir.instructions")

# A recommendation only: files above it are flagged so their owner can trim them. Nothing is cut.
MAX_MEMORY_CHARACTER_COUNT = 40_000
# Far above what is useful in a prompt (files over MAX_MEMORY_CHARACTER_COUNT are already flagged);
# the cap only stops an include of a huge file or a device from exhausting memory.
MAX_INSTRUCTION_FILE_BYTES = 4_000_000


class InstructionType(StrEnum):
    MANAGED = "Managed"
    USER = "User"
    PROJECT = "Project"
    LOCAL = "Local"
    AUTO_MEM = "AutoMem"
    TEAM_MEM = "TeamMem"


@dataclass(frozen=True)
class InstructionFile:
    """One file of the chain, as it reaches the model.

    ``path`` is the path the file was found under (a symlink keeps its own name); ``content`` is
    the cleaned text; ``globs`` is set for conditional rules; ``reason`` says why it was loaded.
    """

    path: str
    type: InstructionType
    content: str
    reason: str
    included_from: str | None = None
    globs: tuple[str, ...] = ()
    base_dir: str | None = None  # what a conditional rule's globs are relative to
    raw: str = field(default="", repr=False, compare=False)

    @property
    def chars(self) -> int:
        """Length in UTF-16 code units, as Claude Code measures it."""
        return utf16_len(self.content)

    @property
    def too_large(self) -> bool:
        return self.chars > MAX_MEMORY_CHARACTER_COUNT

    @property
    def conditional(self) -> bool:
        return bool(self.globs)

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "type": self.type.value, "included_from": self.included_from, "chars": self.chars}


@dataclass(frozen=True)
class SkippedFile:
    """A file the chain named but did not load, and the rule that kept it out."""

    path: str
    rule: str  # excluded | external-include | depth | not-text | unreadable
    detail: str
    included_from: str | None = None


@dataclass(frozen=True)
class ParsedFile:
    content: str
    globs: tuple[str, ...]
    body: str  # the text after frontmatter, which includes are searched in


def parse_instruction_text(raw: str, type_: InstructionType) -> ParsedFile:
    """Clean one file's text for the model: frontmatter off, block comments off, index truncated."""
    frontmatter, body = parse_frontmatter(raw)
    globs: tuple[str, ...] = ()
    if "paths" in frontmatter:
        patterns = [p[:-3] if p.endswith("/**") else p for p in split_paths_frontmatter(frontmatter["paths"])]
        patterns = [p for p in patterns if p]
        if patterns and not all(p == "**" for p in patterns):
            globs = tuple(patterns)
    content = strip_block_html_comments(body) if "<!--" in body else body
    if type_ in (InstructionType.AUTO_MEM, InstructionType.TEAM_MEM):
        content = truncate_entrypoint_content(content).content
    return ParsedFile(content=content, globs=globs, body=body)


def read_instruction_file(path: str, resolved: str) -> str | None:
    """The text of ``resolved`` (``path``'s real target), or None when it is missing or unusable.

    A missing file or a directory is simply not there; an unreadable one is logged, because a
    silently absent policy file would hide a permissions problem.
    """
    try:
        fd = os.open(resolved, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.EISDIR, errno.ENOTDIR):
            log.warning("cannot read instruction file %s: %s", path, exc.strerror)
        return None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if not stat.S_ISDIR(mode):
            log.warning("instruction file %s is not a regular file (a device or pipe); skipped", path)
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(MAX_INSTRUCTION_FILE_BYTES + 1)
        except OSError as exc:
            log.warning("cannot read instruction file %s: %s", path, exc.strerror)
            return None
    if len(data) > MAX_INSTRUCTION_FILE_BYTES:
        log.warning(
            "instruction file %s is over %d bytes; skipped (split it, or include smaller files)",
            path,
            MAX_INSTRUCTION_FILE_BYTES,
        )
        return None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")
