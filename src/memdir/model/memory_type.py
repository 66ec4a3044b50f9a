"""The memory taxonomy and where a memory file keeps its type.

Split from :mod:`memdir.model.memory` so that code which only classifies memories (the header
scan, the selectors, the release rules) does not build the :class:`~memdir.model.memory.Memory`
class on every hook start.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

__all__ = [
    "MEMORY_TYPES",
    "METADATA_KEY",
    "NODE_TYPE",
    "FrontmatterLayout",
    "MemoryType",
    "parse_memory_type",
    "type_from_frontmatter",
]


class MemoryType(StrEnum):
    """The closed taxonomy of Claude Code's auto memory."""

    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"


MEMORY_TYPES: tuple[MemoryType, ...] = tuple(MemoryType)


class FrontmatterLayout(StrEnum):
    """Where a memory file keeps its type."""

    FLAT = "flat"  # ``type: project`` at the top level
    NESTED = "metadata"  # ``metadata:`` then ``  type: project``


METADATA_KEY = "metadata"
NODE_TYPE = "memory"  # the ``metadata.node_type`` Claude Code gives memory files


def parse_memory_type(raw: object) -> MemoryType | None:
    """The type only when ``raw`` is exactly one of the four names: ``"Feedback"`` is no type."""
    if isinstance(raw, str) and raw in MemoryType._value2member_map_:
        return MemoryType(raw)
    return None


def type_from_frontmatter(frontmatter: Mapping[str, object]) -> tuple[object | None, FrontmatterLayout]:
    """The raw ``type`` value and the layout it was found in: top level first, then ``metadata.type``."""
    if "type" in frontmatter:
        return frontmatter["type"], FrontmatterLayout.FLAT
    metadata = frontmatter.get(METADATA_KEY)
    if isinstance(metadata, Mapping) and "type" in metadata:
        return metadata["type"], FrontmatterLayout.NESTED
    return None, FrontmatterLayout.FLAT
