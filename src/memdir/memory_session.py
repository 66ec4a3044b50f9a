"""What memdir puts into one agent session's context: the prompt section, the index, recall.

Claude Code computes the memory section once per session and clears it on ``/clear`` and
``/compact``; a :class:`MemorySession` does the same for any agent loop. Keeping the section
and the index block stable between those events keeps the model's prompt cache warm.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from memdir.config import MemoryConfig, open_memory_dir
from memdir.model.memory import FrontmatterLayout
from memdir.recall.recaller import Recaller, RecallResult, RecallState
from memdir.recall.selector import Selector
from memdir.store.files import ensure_dir
from memdir.store.memdir import MemoryDir

if TYPE_CHECKING:
    from memdir.prompt import PromptConfig
    from memdir.store.index_db import MemoryIndex

__all__ = ["MemorySession"]


class MemorySession:
    """Memory for one conversation: built lazily, cached, invalidated on clear and compact."""

    def __init__(
        self,
        config: MemoryConfig,
        *,
        memory_dir: MemoryDir | None = None,
        selector: Selector | None = None,
        selector_kind: str | None = None,
        model_spec: str | None = None,
        model_timeout: float | None = None,
        clock: Callable[[], float] = time.time,
        instructions: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """``instructions=True`` makes :meth:`user_context` carry the whole CLAUDE.md chain instead of the
        memory indexes alone. Without ``selector``, ``selector_kind`` or else the settings choose one
        (``memdir.selector``, ``memdir.model`` and ``MEMDIR_MODEL``), built on first use with the
        memory directory's own derived index as its cache; ``model_timeout`` caps how long a model
        may take to pick before the offline ranking answers. Both read ``env``, default the process
        environment."""
        self.config = config
        self.instructions = instructions
        self.env = env
        self.memory_dir = memory_dir or open_memory_dir(config)
        self.selector_kind = selector_kind
        self.model_spec = model_spec
        self.model_timeout = model_timeout
        self._selector = selector
        self._recaller: Recaller | None = None
        self._clock = clock
        self.state = RecallState()
        self._section: str | None = None
        self._section_built = False
        self._context: str | None = None
        self._context_built = False

    @property
    def index(self) -> MemoryIndex | None:
        """The derived index the memory directory reads through, when it does (one per database)."""
        # An IndexedMemoryDir exists only once its module is imported: a plain directory costs no import.
        module = sys.modules.get("memdir.store.index_db")
        if module is not None and isinstance(self.memory_dir, module.IndexedMemoryDir):
            index: MemoryIndex = self.memory_dir.index
            return index
        return None

    @property
    def selector(self) -> Selector:
        """The recall selector, built on first use: a process that never recalls never loads one."""
        if self._selector is None:
            from memdir.recall.factory import make_selector

            self._selector = make_selector(
                self.config,
                self.selector_kind,
                self.model_spec,
                env=self.env,
                index=self.index,
                model_timeout=self.model_timeout,
            )
        return self._selector

    @property
    def recaller(self) -> Recaller:
        if self._recaller is None:
            self._recaller = Recaller(
                self.memory_dir,
                selector=self.selector,
                clock=self._clock,
                dated_headers=self.config.claude_code.rules.dated_memory_headers,
            )
        return self._recaller

    def prompt_config(self) -> PromptConfig:
        from memdir.prompt import PromptConfig

        cfg = self.config
        return PromptConfig(
            memory_dir=cfg.memory_dir,
            team_dir=cfg.team_dir if cfg.team_enabled else None,
            extra_guidelines=cfg.extra_guidelines,
            skip_index=cfg.skip_index,
            search_past_context=cfg.search_past_context,
            transcripts_dir=cfg.transcripts_dir,
            daily_log=cfg.daily_log,
            nested_frontmatter=cfg.claude_code.rules.frontmatter is FrontmatterLayout.NESTED,
        )

    def system_prompt_section(self) -> str | None:
        """The memory section of the system prompt, or None when memory is disabled.

        Building it creates the directory (the prompt tells the model it already exists).
        """
        if not self._section_built:
            self._section_built = True
            if self.config.enabled:
                from memdir.prompt import build_memory_prompt

                ensure_dir(self.config.team_dir if self.config.team_enabled else self.config.memory_dir)
                self._section = build_memory_prompt(self.prompt_config())
        return self._section

    def index_blocks(self) -> list[str]:
        """The AutoMem (and TeamMem) index blocks of the user context, truncated per §3.2."""
        if not self.config.enabled or self.config.skip_index:
            return []
        from memdir.prompt import memory_index_block

        blocks: list[str] = []
        sources = [(self.memory_dir.entrypoint, False)]
        if self.config.team_enabled:
            sources.append((os.path.join(self.config.team_dir, "MEMORY.md"), True))
        for path, team in sources:
            raw = self.memory_dir.index_text(path)
            block = memory_index_block(path, raw, team=team) if raw else None
            if block is not None:
                blocks.append(block)
        return blocks

    def user_context(self) -> str | None:
        """The meta user message carrying the index (or the full instruction chain), or None when
        there is nothing to show."""
        if not self._context_built:
            self._context_built = True
            if self.instructions:
                from memdir.instructions import load_instruction_files, render_instructions

                files = load_instruction_files(self.config)
                self._context = render_instructions(files, skip_index=self.config.skip_index)
            else:
                from memdir.prompt import render_user_context

                self._context = render_user_context(self.index_blocks())
        return self._context

    def recall(self, message: str, *, recent_tools: Sequence[str] = ()) -> RecallResult:
        """Memories relevant to a user message that this conversation has not seen yet."""
        if not self.config.enabled:
            return RecallResult(skipped=f"auto memory is disabled ({self.config.disabled_reason})")
        return self.recaller.recall(message, state=self.state, recent_tools=recent_tools)

    def note_read(self, path: str, mtime_ms: float = 0.0) -> None:
        self.state.note_read(path, mtime_ms)

    def clear(self) -> None:
        """A new conversation in the same session: rebuild everything on next use."""
        self._invalidate()
        self.state.reset()

    def compact(self) -> None:
        """Compaction dropped old surfaced memories from the transcript, so the budget starts again."""
        self._invalidate()
        self.state.reset()

    def _invalidate(self) -> None:
        self._section_built = False
        self._context_built = False
        self._section = None
        self._context = None
