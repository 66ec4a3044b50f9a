"""The CLAUDE.md instruction chain: discovery, ``@include`` resolution, and rendering.

See docs/instructions.md for the loading order and the rules each file goes through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.instructions.discovery import EXTERNAL_INCLUDES_KEY as EXTERNAL_INCLUDES_KEY
    from memdir.instructions.discovery import MAX_INCLUDE_DEPTH as MAX_INCLUDE_DEPTH
    from memdir.instructions.discovery import InstructionChain as InstructionChain
    from memdir.instructions.discovery import load_instruction_files as load_instruction_files
    from memdir.instructions.discovery import load_instructions as load_instructions
    from memdir.instructions.files import MAX_MEMORY_CHARACTER_COUNT as MAX_MEMORY_CHARACTER_COUNT
    from memdir.instructions.files import InstructionFile as InstructionFile
    from memdir.instructions.files import InstructionType as InstructionType
    from memdir.instructions.files import SkippedFile as SkippedFile
    from memdir.instructions.render import instruction_blocks as instruction_blocks
    from memdir.instructions.render import render_instructions as render_instructions

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.instructions.discovery": [
            "EXTERNAL_INCLUDES_KEY",
            "MAX_INCLUDE_DEPTH",
            "InstructionChain",
            "load_instruction_files",
            "load_instructions",
        ],
        "memdir.instructions.files": [
            "MAX_MEMORY_CHARACTER_COUNT",
            "InstructionFile",
            "InstructionType",
            "SkippedFile",
        ],
        "memdir.instructions.render": ["instruction_blocks", "render_instructions"],
    },
)
