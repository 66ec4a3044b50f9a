"""The instruction chain as the user-context message a model receives.

Each file becomes one ``Contents of <path> (<what it is>):`` block; the memory indexes reuse the
blocks of :mod:`memdir.prompt` so that a session with and without the full chain shows the index
identically. With ``skip_index`` the indexes are left out, since recall surfaces memories instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from memdir.instructions.files import InstructionFile, InstructionType
from memdir.prompt import memory_index_block, render_user_context

__all__ = ["DESCRIPTIONS", "instruction_blocks", "render_instructions"]

# Claude Code's labels for each kind of CLAUDE.md (SPEC), kept as data: the blocks read as Claude Code's.
DESCRIPTIONS = {
    InstructionType.PROJECT: " (project instructions, checked into the codebase)",
    InstructionType.LOCAL: " (user's private project instructions, not checked in)",
    InstructionType.USER: " (user's private global instructions for all projects)",
    InstructionType.MANAGED: " (user's private global instructions for all projects)",
}


def instruction_blocks(files: Iterable[InstructionFile], *, skip_index: bool = False) -> list[str]:
    """One block per file with content, in the order given."""
    blocks: list[str] = []
    for file in files:
        if file.conditional:
            continue
        if file.type in (InstructionType.AUTO_MEM, InstructionType.TEAM_MEM):
            if skip_index:
                continue
            block = memory_index_block(file.path, file.raw, team=file.type is InstructionType.TEAM_MEM)
            if block is not None:
                blocks.append(block)
            continue
        content = file.content.strip()
        if content:
            blocks.append(f"Contents of {file.path}{DESCRIPTIONS[file.type]}:\n\n{content}")
    return blocks


def render_instructions(files: Iterable[InstructionFile], *, skip_index: bool = False) -> str | None:
    """The ``<system-reminder>`` user-context message carrying the chain, or None when it is empty."""
    return render_user_context(instruction_blocks(files, skip_index=skip_index))
