"""The composition root: one configuration in, memdir's objects for one conversation out.

A :class:`MemorySession` builds, each on first use, what every adapter (CLI, MCP server, hooks,
memory tool, web view, Python API) needs from one :class:`~memdir.config.MemoryConfig`: the
store, its derived index, the recall selector, the model, and the background agents (extraction,
session notes, the dream). Building them in one place is what makes a setting mean the same thing
everywhere.

It is also what memdir puts into one agent session's context: Claude Code computes the memory
section once per session and clears it on ``/clear`` and ``/compact``; a session does the same for
any agent loop. Keeping the section and the index block stable between those events keeps the
model's prompt cache warm.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memdir.config import MemoryConfig, agent_memory_dir, open_dream_dir, open_memory_dir
from memdir.errors import ConfigError
from memdir.model.memory_type import FrontmatterLayout
from memdir.store.directory import MemoryDir
from memdir.store.files import ensure_dir

if TYPE_CHECKING:
    from memdir.extract.extractor import Extractor
    from memdir.journal.dream import DreamReport
    from memdir.llm.base import ChatModel
    from memdir.prompt import PromptConfig
    from memdir.recall.lexical_selector import LexicalSelector
    from memdir.recall.recaller import Recaller, RecallResult, RecallState
    from memdir.recall.registry import SelectorKind
    from memdir.recall.selector_protocol import Selector
    from memdir.session_notes.session import SessionNotes
    from memdir.store.index_db import MemoryIndex
    from memdir.tools.toolbox import MemoryToolbox

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
        hook_selector: bool = False,
        model: ChatModel | None = None,
        model_spec: str | None = None,
        model_timeout: float | None = None,
        clock: Callable[[], float] = time.time,
        instructions: bool = False,
        defer_work: bool = False,
    ) -> None:
        """``instructions=True`` makes :meth:`user_context` carry the whole CLAUDE.md chain instead of the
        memory indexes alone. Without ``selector``, ``selector_kind`` or else the settings choose one
        (``memdir.selector``, or with ``hook_selector`` the prompt hook's ``memdir.hookSelector``), built
        on first use with the memory directory's own derived index as its cache; ``model_timeout``
        caps how long a model may take to pick before the offline ranking answers. The model (for
        the selector and the agents alike) is ``model`` when given, else the one ``model_spec``
        names, else ``MEMDIR_MODEL``, else the settings key ``memdir.model``. ``defer_work=True``
        is for a caller that must answer at once (the prompt hook): recall then leaves the derived
        index's long work (a first build, a due full refresh, a large catch-up of its stored
        rankings) to a background ``memdir reindex``, which the index asks for (``background_due``)."""
        self.config = config
        self.defer_work = defer_work
        self.instructions = instructions
        self._memory_dir = memory_dir
        self._agent_dir: MemoryDir | None = None
        self.selector_kind = selector_kind
        self.hook_selector = hook_selector
        self.model_option = model_spec
        self.model_timeout = model_timeout
        self._model = model
        self._selector = selector
        self._writer_ranker: Selector | None = None
        self._kind: SelectorKind | None = None
        self._recaller: Recaller | None = None
        self._toolbox: MemoryToolbox | None = None
        self._clock = clock
        self._state: RecallState | None = None
        self._section: str | None = None
        self._section_built = False
        self._context: str | None = None
        self._context_built = False

    @property
    def state(self) -> RecallState:
        """What this conversation has been shown and has read, so recall does not repeat it."""
        if self._state is None:
            from memdir.recall.recaller import RecallState

            self._state = RecallState()
        return self._state

    @state.setter
    def state(self, value: RecallState) -> None:
        self._state = value

    @property
    def memory_dir(self) -> MemoryDir:
        """The store (``config.open_memory_dir``), opened on first use."""
        if self._memory_dir is None:
            self._memory_dir = open_memory_dir(self.config)
        return self._memory_dir

    @property
    def agent_dir(self) -> MemoryDir:
        """The store as agents may change it (``memdir.agentWrites``, ``config.agent_memory_dir``):
        the directory itself (``direct``), one where every change is a proposal a person accepts
        (``review``), or one that refuses every change (``off``). Every agent-facing write path
        writes through it: extraction, the dream, the MCP tools, the memory tool, the framework
        adapters' tools and the LangGraph store. A person's CLI and web view use :attr:`memory_dir`."""
        if self._agent_dir is None:
            self._agent_dir = agent_memory_dir(self.config, self.memory_dir)
        return self._agent_dir

    @property
    def index(self) -> MemoryIndex | None:
        """The derived index the memory directory reads through, when it does (one per database)."""
        # An IndexedMemoryDir exists only once its module is imported: a plain directory costs no import.
        memory_dir = self.memory_dir  # opened first: opening an indexed store imports the module
        module = sys.modules.get("memdir.store.index_db")
        if module is not None and isinstance(memory_dir, module.IndexedMemoryDir):
            index: MemoryIndex = memory_dir.index
            return index
        return None

    # -- the model --------------------------------------------------------------------------------
    @property
    def model_spec(self) -> str | None:
        """The spec of the model this session uses, or None when none is configured: the given
        model's, else ``model_spec``, else ``MEMDIR_MODEL``, else the settings key ``memdir.model``."""
        if self._model is not None:
            return self._model.spec
        from memdir.llm.registry import resolve_model_spec

        return resolve_model_spec(
            self.model_option,
            environment_value=self.config.environment.model,
            settings_value=self.config.memdir.model,
        )

    @property
    def model(self) -> ChatModel:
        """The one model of this session, built on first use; the selector and the agents share it.

        Raises :class:`~memdir.errors.ModelNotConfigured` (naming the three ways to configure one)
        when there is none, and the provider's error when it cannot be built (no SDK, no key)."""
        return self._require_model("this session (the llm selector, extraction, session notes or the dream)")

    def _require_model(self, purpose: str) -> ChatModel:
        if self._model is None:
            from memdir.llm.registry import load_model, model_not_configured

            spec = self.model_spec
            if spec is None:
                raise model_not_configured(purpose)
            self._model = load_model(spec, self.config.environment)
        return self._model

    def _load_model(self, spec: str) -> ChatModel:
        """The selector's model loader: the session's model, built once (``spec`` is the session's)."""
        return self.model

    # -- recall ------------------------------------------------------------------------------------
    def selected_kind(self) -> SelectorKind:
        """The kind of selector this session builds, checked (once) against the registry: the
        caller's ``selector_kind``, else ``memdir.selector`` (``memdir.hookSelector`` for a session
        built with ``hook_selector``). Asking early reports a
        wrong kind before the first recall."""
        if self._kind is None:
            from memdir.recall.factory import selector_record

            self._kind = selector_record(self.config, self.selector_kind, hook=self.hook_selector)
        return self._kind

    @property
    def selector(self) -> Selector:
        """The recall selector, built on first use: a process that never recalls never loads one."""
        if self._selector is None:
            from memdir.recall.factory import selector_inputs
            from memdir.recall.registry import build_selector

            kind = self.selected_kind()
            inputs = selector_inputs(
                self.config,
                kind,
                self.model_spec if kind.model else None,  # resolved here only, and only for a kind that uses it
                load_model=self._load_model,
                index=self.index,
                model_timeout=self.model_timeout,
            )
            self._selector = build_selector(kind, inputs)
        return self._selector

    def lexical_ranker(self) -> LexicalSelector:
        """The offline lexical ranking over this store, with the store's analysis cache (its derived
        index, or the analyses file under the config home): what search and the framework stores
        rank with beside the recall selector."""
        from memdir.recall.factory import analysis_cache
        from memdir.recall.lexical_selector import LexicalSelector

        return LexicalSelector(cache=analysis_cache(self.config, self.index))

    def writer_ranker(self) -> Selector:
        """How a writer is shown the memories that may already say what it saves
        (:mod:`memdir.writes.near`): the lexical ranking, with the sentence embedding fused in
        when recall ranks with it (``memdir.selector`` is ``offline``, ``hybrid`` or ``embedding``,
        so the memories' vectors are kept already); never a model. A write pays for the encoder;
        the prompt hook never asks for this."""
        if self._writer_ranker is None:
            from memdir.recall.factory import selector_inputs, selector_kind
            from memdir.recall.registry import build_selector

            recall_kind = selector_kind(self.config)
            kind = {"offline": "offline", "hybrid": "hybrid", "embedding": "hybrid"}.get(recall_kind, "lexical")
            self._writer_ranker = build_selector(kind, selector_inputs(self.config, kind, index=self.index))
        return self._writer_ranker

    @property
    def recaller(self) -> Recaller:
        if self._recaller is None:
            from memdir.recall.recaller import Recaller

            self._recaller = Recaller(
                self.memory_dir,
                selector=self.selector,
                clock=self._clock,
                dated_headers=self.config.claude_code.rules.dated_memory_headers,
                defer_work=self.defer_work,
            )
        return self._recaller

    @property
    def toolbox(self) -> MemoryToolbox:
        """The memory tools a model calls (:mod:`memdir.tools`), one per session: over
        :attr:`agent_dir` (``memdir.agentWrites``), recalling with :attr:`recaller` (built at the
        first recall) and checking writes with :meth:`writer_ranker`. The MCP server and the
        agent-framework adapters hand out these tools."""
        if self._toolbox is None:
            from memdir.tools.toolbox import MemoryToolbox

            self._toolbox = MemoryToolbox(
                self.agent_dir, recaller=lambda: self.recaller, writer_ranker=self.writer_ranker
            )
        return self._toolbox

    def prompt_config(self) -> PromptConfig:
        from memdir.prompt import PromptConfig

        cfg = self.config
        return PromptConfig(
            memory_dir=cfg.memory_dir,
            team_dir=cfg.team_dir if cfg.team_enabled else None,
            extra_guidelines=cfg.extra_guidelines,
            skip_index=cfg.memdir.skip_index,
            search_past_context=cfg.memdir.search_past_context,
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
        if not self.config.enabled or self.config.memdir.skip_index:
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
                from memdir.instructions.discovery import load_instruction_files
                from memdir.instructions.render import render_instructions

                files = load_instruction_files(self.config)
                self._context = render_instructions(files, skip_index=self.config.memdir.skip_index)
            else:
                from memdir.prompt import render_user_context

                self._context = render_user_context(self.index_blocks())
        return self._context

    def recall(self, message: str, *, recent_tools: Sequence[str] = ()) -> RecallResult:
        """Memories relevant to a user message that this conversation has not seen yet."""
        if not self.config.enabled:
            from memdir.recall.recaller import RecallResult

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

    # -- the background agents -------------------------------------------------------------------
    def extractor(self, **options: object) -> Extractor:
        """The extraction agent over this session's memory directory, with the session's model, the
        team secret guard of the directory, and the throttle and prefilter of the settings
        (``memdir.extractEveryTurns``, ``memdir.extractPrefilter``). ``options`` are the
        :class:`~memdir.extract.extractor.Extractor` keywords (``cursor``, ``cursor_file``,
        ``clock``, ``on_result``, ...); one given wins over the setting."""
        from memdir.extract.extractor import Extractor
        from memdir.model.memory_type import FrontmatterLayout

        config = self.config
        options.setdefault("every_turns", config.memdir.extract_every_turns)
        options.setdefault("manifest_limit", config.memdir.extract_prefilter)
        options.setdefault("writer_ranker", self.writer_ranker)
        if not config.enabled:
            options.setdefault("disabled_reason", f"auto memory is disabled ({config.disabled_reason})")
        if config.memdir.agent_writes == "off":
            options.setdefault("disabled_reason", "agents may not change memory (memdir.agentWrites is off)")
        return Extractor(
            self._require_model("extraction"),
            self.agent_dir,
            team_enabled=config.team_enabled,
            skip_index=config.memdir.skip_index,
            nested_frontmatter=config.claude_code.rules.frontmatter is FrontmatterLayout.NESTED,
            links=config.claude_code.rules.links_memories,
            **options,  # type: ignore[arg-type]
        )

    def session_notes(
        self,
        session_id: str | None = None,
        *,
        transcript: str | None = None,
        with_model: bool = True,
        persist: bool = True,
        clock: Callable[[], float] = time.monotonic,
        lock_timeout: float = 10.0,
    ) -> SessionNotes:
        """The compaction notes of one Claude Code session (``session_id``, or the file name of its
        ``transcript``), under the project's transcripts directory, with the thresholds and the
        compaction switch of ``memdir.sessionMemory`` and the environment's
        ``ENABLE_/DISABLE_CLAUDE_CODE_SM_COMPACT``.

        ``with_model`` attaches the session's model when one is configured (an update without one
        raises :class:`~memdir.errors.ModelNotConfigured`); reading, status and compaction need
        none, so they pass False and never import a provider SDK."""
        from memdir.session_notes.paths import SessionPaths
        from memdir.session_notes.session import SessionNotes
        from memdir.session_notes.thresholds import (
            compact_thresholds,
            should_use_session_memory_compaction,
            update_thresholds,
        )

        config = self.config
        name = session_id or _session_id_of(transcript)
        setting = config.memdir.session_memory
        environment = config.environment
        return SessionNotes(
            SessionPaths.for_session(name, transcripts_dir=config.transcripts_dir, config_home=config.config_home),
            model=self.model if with_model and self.model_spec is not None else None,
            thresholds=update_thresholds(setting),
            compaction=compact_thresholds(setting),
            use_for_compaction=should_use_session_memory_compaction(
                setting, enable=environment.enable_sm_compact, disable=environment.disable_sm_compact
            ),
            persist=persist,
            clock=clock,
            lock_timeout=lock_timeout,
        )

    def dream(
        self,
        *,
        force: bool = False,
        dry_run: bool = False,
        current_session: str | None = None,
        clock: Callable[[], float] = time.time,
        max_turns: int | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> DreamReport:
        """Consolidate this memory when a dream is due (or ``force``), with the session's model
        (see :func:`memdir.journal.dream.run_dream`). A dry run, or a dream that is not due, needs no
        model; a due dream without one raises :class:`~memdir.errors.ModelNotConfigured`."""
        from memdir.journal.dream import run_dream

        model = self.model if not dry_run and self.model_spec is not None else None
        return run_dream(
            self.config,
            model,
            force=force,
            dry_run=dry_run,
            current_session=current_session,
            clock=clock,
            max_turns=max_turns,
            on_progress=on_progress,
            memory_dir=open_dream_dir(self.config),
        )

    async def adream(
        self,
        *,
        force: bool = False,
        dry_run: bool = False,
        current_session: str | None = None,
        clock: Callable[[], float] = time.time,
        max_turns: int | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> DreamReport:
        """:meth:`dream` for async agent loops: the model is called with ``acomplete``."""
        from memdir.journal.dream import arun_dream

        model = self.model if not dry_run and self.model_spec is not None else None
        return await arun_dream(
            self.config,
            model,
            force=force,
            dry_run=dry_run,
            current_session=current_session,
            clock=clock,
            max_turns=max_turns,
            on_progress=on_progress,
            memory_dir=open_dream_dir(self.config),
        )

    def _invalidate(self) -> None:
        self._section_built = False
        self._context_built = False
        self._section = None
        self._context = None


def _session_id_of(transcript: str | None) -> str:
    """A Claude Code transcript is named ``<session id>.jsonl``."""
    if transcript:
        stem = os.path.basename(transcript)
        for suffix in (".jsonl", ".json"):
            stem = stem.removesuffix(suffix)
        return stem
    raise ConfigError(
        "name the session: pass --transcript PATH (its file name is the session id) or --session-id ID",
        rule="session-id",
    )
