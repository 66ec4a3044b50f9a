"""The CLAUDE.md instruction chain: discovery, ``@include`` resolution, and rendering.

See docs/instructions.md for the loading order and the rules each file goes through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.instructions.discovery import (
        EXTERNAL_INCLUDES_KEY,
        MAX_INCLUDE_DEPTH,
        InstructionChain,
        load_instruction_files,
        load_instructions,
    )
    from memdir.instructions.files import MAX_MEMORY_CHARACTER_COUNT, InstructionFile, InstructionType, SkippedFile
    from memdir.instructions.render import instruction_blocks, render_instructions

__all__ = [
    "EXTERNAL_INCLUDES_KEY",
    "MAX_INCLUDE_DEPTH",
    "MAX_MEMORY_CHARACTER_COUNT",
    "InstructionChain",
    "InstructionFile",
    "InstructionType",
    "SkippedFile",
    "instruction_blocks",
    "load_instruction_files",
    "load_instructions",
    "render_instructions",
]

_resolve = lazy_exports(
    __name__,
    {
        "EXTERNAL_INCLUDES_KEY": "memdir.instructions.discovery",
        "MAX_INCLUDE_DEPTH": "memdir.instructions.discovery",
        "InstructionChain": "memdir.instructions.discovery",
        "load_instruction_files": "memdir.instructions.discovery",
        "load_instructions": "memdir.instructions.discovery",
        "MAX_MEMORY_CHARACTER_COUNT": "memdir.instructions.files",
        "InstructionFile": "memdir.instructions.files",
        "InstructionType": "memdir.instructions.files",
        "SkippedFile": "memdir.instructions.files",
        "instruction_blocks": "memdir.instructions.render",
        "render_instructions": "memdir.instructions.render",
    },
)


def __getattr__(name: str) -> Any:
    return _resolve(name)
