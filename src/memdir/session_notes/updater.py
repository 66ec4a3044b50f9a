"""The update agent: one model run that edits the notes file and nothing else.

The run is written once as a generator (like :func:`memdir.background.agent_steps`, which it
wraps) so the sync and async entry points share every rule. Runs of one session never overlap:
within a process a :class:`RunGuard` makes a second caller wait its turn, and across processes
the session-memory directory's file lock does the same for up to ``lock_timeout`` seconds,
after which the later run is skipped as ``"busy"`` (the running one is writing the same notes).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from memdir.background.file_tools import Denial, MemoryFileTools
from memdir.background.loop import agent_steps
from memdir.conversation import ConversationMessage, render_conversation
from memdir.errors import LockTimeout
from memdir.llm.base import ChatRequest, Completion, Message
from memdir.session_notes.notes import build_update_prompt, structure_check
from memdir.session_notes.paths import SessionPaths, load_session_prompt
from memdir.session_notes.state import SessionState
from memdir.session_notes.thresholds import UpdateThresholds, should_extract_memory
from memdir.session_notes.tokens import last_turn_has_tool_calls, token_count_with_estimation
from memdir.store.directory import MemoryDir
from memdir.store.files import lock_directory
from memdir.templates import render_template

__all__ = [
    "MAX_UPDATE_TURNS",
    "UPDATE_MAX_TOKENS",
    "RunGuard",
    "UpdateResult",
    "render_recent_conversation",
    "update_steps",
]

# Claude Code sets no turn limit: the prompt asks for one turn of parallel edits and a stop. A
# model that keeps calling tools anyway would run up cost without end, so memdir stops it after
# ten turns, far more than a well-behaved update needs (one turn of edits, one to finish).
MAX_UPDATE_TURNS = 10
UPDATE_MAX_TOKENS = 8192


@dataclass(frozen=True)
class UpdateResult:
    updated: bool  # the agent ran (whether or not it chose to change anything)
    reason: str  # "updated" | "not-due" | "busy"
    notes_path: str
    created: bool = False  # this run wrote the first notes (summary.md did not exist before)
    edits: int = 0  # successful Edit calls
    denials: tuple[Denial, ...] = ()
    turns: int = 0
    stopped: str = ""
    tokens: int = 0  # the context size the run recorded


class RunGuard:
    """In-process exclusion for update runs, with the start time compaction needs to see."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._cond = threading.Condition()
        self.started_at: float | None = None

    def acquire(self) -> None:
        with self._cond:
            while self.started_at is not None:
                self._cond.wait()
            self.started_at = self.clock()

    async def aacquire(self, poll: float = 0.05) -> None:
        while True:
            with self._cond:
                if self.started_at is None:
                    self.started_at = self.clock()
                    return
            await asyncio.sleep(poll)

    def release(self) -> None:
        with self._cond:
            self.started_at = None
            self._cond.notify_all()

    @property
    def running(self) -> bool:
        return self.started_at is not None

    def wait_idle(self, *, timeout: float, stale_after: float) -> bool:
        """Wait for a running update to finish; False when it gave up (timeout or a stale run).

        A run older than ``stale_after`` is presumed stuck and not waited for; compaction then
        proceeds with the notes as they are, which is still better than no notes.
        """
        begin = self.clock()
        with self._cond:
            while self.started_at is not None:
                now = self.clock()
                if now - self.started_at > stale_after:
                    return False
                remaining = timeout - (now - begin)
                if remaining <= 0:
                    return False
                self._cond.wait(min(remaining, 1.0))
            return True


def render_recent_conversation(messages: Sequence[ConversationMessage], max_chars: int) -> str:
    """The conversation as text, dropping the oldest messages when it exceeds ``max_chars``.

    The notes already hold what the oldest messages said, so when a context is larger than the
    budget the update agent sees its most recent part in full rather than every part clipped.
    """
    total = 0
    first = len(messages)
    for index in range(len(messages) - 1, -1, -1):
        size = len(render_conversation([messages[index]])) + 2
        if total + size > max_chars and first < len(messages):
            break
        total += size
        first = index
    text = render_conversation(messages[first:])
    if first > 0:
        text = render_template("session_omitted", count=str(first)) + "\n\n" + text
    return text


def update_steps(
    *,
    paths: SessionPaths,
    state: SessionState,
    messages: Sequence[ConversationMessage],
    thresholds: UpdateThresholds,
    force: bool,
    lock_timeout: float,
    max_conversation_chars: int,
    reload_state: Callable[[], None] | None = None,
    save_state: Callable[[], None] | None = None,
) -> Generator[ChatRequest, Completion, UpdateResult]:
    """Check the rule (unless ``force``), set up the file, run the agent, advance ``state``.

    Everything happens under the directory lock, so the rule is checked against the state the
    previous run (maybe in another process) left, and the state saved reflects this run.
    """
    notes_path = paths.notes
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(lock_directory(paths.directory, timeout=lock_timeout))
    except LockTimeout:
        return UpdateResult(updated=False, reason="busy", notes_path=notes_path)
    with stack:
        if reload_state is not None:
            reload_state()
        if not force and not should_extract_memory(messages, state, thresholds):
            if save_state is not None:
                save_state()
            return UpdateResult(
                updated=False,
                reason="not-due",
                notes_path=notes_path,
                tokens=token_count_with_estimation(messages),
            )
        editing, template = paths.notes_to_edit()
        directory = MemoryDir(paths.directory)
        # The model is told about summary.md; while the first notes are a draft, edits land there.
        target = directory.resolve(notes_path)
        real = directory.resolve(editing)
        notes = directory.read_text(real)
        prompt = build_update_prompt(load_session_prompt(paths.config_home), notes, target)
        conversation = render_template(
            "session_conversation", conversation=render_recent_conversation(messages, max_conversation_chars)
        )
        tools = MemoryFileTools(
            directory,
            allowed=("Edit",),
            writable_files={real},
            edit_check=structure_check,
            aliases={target: real} if real != target else {},
        )
        try:
            run = yield from agent_steps(
                system=render_template("session_system"),
                messages=[Message(role="user", text=conversation + "\n\n" + prompt)],
                tools=tools.tools(),
                max_turns=MAX_UPDATE_TURNS,
                max_tokens=UPDATE_MAX_TOKENS,
            )
        except BaseException:
            if template is not None:
                paths.settle_draft(template)
            if save_state is not None:
                save_state()
            raise
        created = template is not None and paths.settle_draft(template)
        tokens = token_count_with_estimation(messages)
        state.tokens_at_last_extraction = tokens
        if messages and not last_turn_has_tool_calls(messages):
            state.last_summarized_message_id = messages[-1].uuid
        if save_state is not None:
            save_state()
        edits = sum(1 for call, outcome in run.calls if call.name == "Edit" and not outcome.is_error)
        return UpdateResult(
            updated=True,
            reason="updated",
            notes_path=directory.resolve(notes_path),
            created=created,
            edits=edits,
            denials=tuple(tools.denials),
            turns=run.turns,
            stopped=run.stopped,
            tokens=tokens,
        )
