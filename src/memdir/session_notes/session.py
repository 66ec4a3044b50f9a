"""The library API of session memory for agent loops.

An agent loop gets one :class:`SessionNotes` per session from the composition root
(:meth:`memdir.memory_session.MemorySession.session_notes`) and calls :meth:`update` (or
:meth:`aupdate`) after each model response, with the conversation so far; the notes are
rewritten only when the update rule says so. When the context fills up, :meth:`compact` returns
the summary message and the messages to keep, or None when the loop should compact the ordinary
way. The cursors live on the object and, with ``persist=True``, in ``state.json`` beside the
notes, so a CLI call or another process continues where the last one stopped.

    memory = MemorySession(resolve_config("/work/app")).session_notes("3f2a...")
    memory.update(messages)                       # after every model response
    result = memory.compact(messages)             # when the context is full
    if result is not None:
        messages = [result.summary_message, *result.kept]
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from memdir.conversation import ConversationMessage
from memdir.errors import LockTimeout, ModelNotConfigured
from memdir.llm.base import ChatModel, ChatRequest, Completion
from memdir.llm.steps import arun_steps, run_steps
from memdir.session_notes.compact import CompactionFallback, CompactionResult, plan_compaction
from memdir.session_notes.paths import SessionPaths, load_session_template
from memdir.session_notes.state import SessionState
from memdir.session_notes.thresholds import CompactThresholds, UpdateThresholds, should_extract_memory
from memdir.session_notes.tokens import count_tool_calls_since, live_context, token_count_with_estimation
from memdir.session_notes.updater import RunGuard, UpdateResult, update_steps
from memdir.store.files import lock_directory

__all__ = ["SessionNotes", "SessionStatus"]

WAIT_TIMEOUT = 15.0  # how long compaction waits for a running update
STALE_AFTER = 60.0  # an update running longer than this is not waited for


@dataclass(frozen=True)
class SessionStatus:
    tokens: int
    initialized: bool
    tool_calls_since_update: int
    update_due: bool
    notes_path: str
    notes_exist: bool

    def to_json(self) -> dict[str, object]:
        return {
            "tokens": self.tokens,
            "initialized": self.initialized,
            "tool_calls_since_update": self.tool_calls_since_update,
            "update_due": self.update_due,
        }


class SessionNotes:
    """One session's notes: the update rule, the update agent, and compaction from the notes."""

    def __init__(
        self,
        paths: SessionPaths,
        *,
        model: ChatModel | None = None,
        thresholds: UpdateThresholds | None = None,
        compaction: CompactThresholds | None = None,
        use_for_compaction: bool = True,
        state: SessionState | None = None,
        persist: bool = True,
        clock: Callable[[], float] = time.monotonic,
        lock_timeout: float = 10.0,
        max_conversation_chars: int = 400_000,
    ) -> None:
        self.paths = paths
        self.model = model
        self.thresholds = thresholds or UpdateThresholds()
        self.compaction = compaction or CompactThresholds()
        self.use_for_compaction = use_for_compaction
        self.persist = persist
        self.state = state if state is not None else (SessionState.load(paths.state) if persist else SessionState())
        self.lock_timeout = lock_timeout
        self.max_conversation_chars = max_conversation_chars
        self.guard = RunGuard(clock)

    # -- state ----------------------------------------------------------------------------
    def reload_state(self) -> None:
        if self.persist:
            self.state.assign(SessionState.load(self.paths.state))

    def save_state(self) -> None:
        if self.persist:
            self.state.save(self.paths.state)

    def read_notes(self) -> str | None:
        return self.paths.read_notes()

    def status(self, messages: Sequence[ConversationMessage]) -> SessionStatus:
        """Where the session stands, without changing anything."""
        context = live_context(messages)
        return SessionStatus(
            tokens=token_count_with_estimation(context),
            initialized=self.state.initialized,
            tool_calls_since_update=count_tool_calls_since(context, self.state.last_memory_message_uuid),
            update_due=should_extract_memory(context, self.state.copy(), self.thresholds),
            notes_path=self.paths.notes,
            notes_exist=os.path.isfile(self.paths.notes),
        )

    # -- updating -------------------------------------------------------------------------
    def _steps(
        self, messages: Sequence[ConversationMessage], force: bool
    ) -> Generator[ChatRequest, Completion, UpdateResult]:
        return update_steps(
            paths=self.paths,
            state=self.state,
            messages=live_context(messages),
            thresholds=self.thresholds,
            force=force,
            lock_timeout=self.lock_timeout,
            max_conversation_chars=self.max_conversation_chars,
            reload_state=self.reload_state if self.persist else None,
            save_state=self.save_state if self.persist else None,
        )

    def _model(self) -> ChatModel:
        if self.model is None:
            raise ModelNotConfigured(
                "updating session notes needs a model; pass model= to SessionNotes, use --model, "
                "or set MEMDIR_MODEL or the settings key memdir.model (e.g. anthropic:claude-sonnet-4-6)"
            )
        return self.model

    def update(self, messages: Sequence[ConversationMessage], *, force: bool = False) -> UpdateResult:
        """Update the notes if the rule says so (always with ``force``, like ``/summary``).

        Call it after each model response. A call made while another update of this session
        runs in this process waits for it, then applies the rule to the newer state. The model
        is needed only when an update is due, so a loop without one can still track the state.
        """
        self.guard.acquire()
        try:
            # The model is looked up at the first request: a turn with no update due needs none.
            return run_steps(self._steps(messages, force), lambda request: self._model().complete(request))
        finally:
            self.guard.release()

    async def aupdate(self, messages: Sequence[ConversationMessage], *, force: bool = False) -> UpdateResult:
        """:meth:`update` for async agent loops (the model is called with ``acomplete``)."""
        await self.guard.aacquire()
        try:
            return await arun_steps(self._steps(messages, force), lambda request: self._model().acomplete(request))
        finally:
            self.guard.release()

    def wait_for_update(self, *, timeout: float = WAIT_TIMEOUT, stale_after: float = STALE_AFTER) -> bool:
        """Wait (bounded) for a running update, in this process and then in others; True if idle.

        Compaction calls this first so that it uses the freshest notes; it gives up rather than
        block a full context for long.
        """
        begin = self.guard.clock()
        if not self.guard.wait_idle(timeout=timeout, stale_after=stale_after):
            return False
        remaining = timeout - (self.guard.clock() - begin)
        if remaining <= 0 or not os.path.isdir(self.paths.directory):
            return True
        try:
            with lock_directory(self.paths.directory, timeout=remaining):
                return True
        except LockTimeout:
            return False

    # -- compaction -----------------------------------------------------------------------
    def plan_compaction(
        self,
        messages: Sequence[ConversationMessage],
        *,
        transcript_path: str | None = None,
        auto_compact_threshold: int | None = None,
        wait: bool = True,
    ) -> CompactionResult | CompactionFallback:
        """Compaction from the notes, or the reason it is not possible (see :meth:`compact`)."""
        if not self.use_for_compaction:
            return CompactionFallback(
                "disabled", "session-memory compaction is switched off (env or memdir.sessionMemory.useForCompaction)"
            )
        if wait:
            self.wait_for_update()
        self.reload_state()
        return plan_compaction(
            live_context(messages),
            notes=self.paths.read_notes(),
            template=load_session_template(self.paths.config_home),
            notes_path=self.paths.notes,
            last_summarized_message_id=self.state.last_summarized_message_id,
            thresholds=self.compaction,
            transcript_path=transcript_path,
            auto_compact_threshold=auto_compact_threshold,
        )

    def compact(
        self,
        messages: Sequence[ConversationMessage],
        *,
        transcript_path: str | None = None,
        auto_compact_threshold: int | None = None,
        wait: bool = True,
    ) -> CompactionResult | None:
        """The summary message and the messages to keep, or None to compact the ordinary way.

        The result's ``start_index`` counts from the last compact boundary in ``messages`` (the
        agent's live context); ``kept`` are the messages themselves.

        None when the feature is off, there are no notes or only the template, the last message
        the notes cover is no longer in the conversation, or the result would still be at or
        over ``auto_compact_threshold`` tokens.
        """
        outcome = self.plan_compaction(
            messages, transcript_path=transcript_path, auto_compact_threshold=auto_compact_threshold, wait=wait
        )
        return outcome if isinstance(outcome, CompactionResult) else None
