"""The CLAUDE.md instruction chain: discovery, ``@include`` resolution, and rendering.

See docs/instructions.md for the loading order and the rules each file goes through.
"""

from __future__ import annotations

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
