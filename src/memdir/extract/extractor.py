"""The background extraction agent (SPEC §7): after a turn, save what the conversation taught.

One :class:`Extractor` belongs to one conversation. Feed it the conversation after every
completed turn with :meth:`Extractor.submit` (a background thread) or :meth:`Extractor.asubmit`
(an asyncio task); it decides whether to run, runs a small tool-using agent confined to the
memory directory, and moves its cursor past the messages it has dealt with.

The rules, in the order they apply:

* only messages after the cursor count; with none, nothing runs;
* if the main agent itself wrote into the memory directory since the cursor, the cursor moves on
  and no model is asked: the main agent already decided what to keep;
* a throttle lets a run through every ``every_turns`` eligible turns (trailing runs excepted);
* one run at a time: a call during a run stashes its conversation (the latest wins) and exactly
  one trailing run follows when the current one ends;
* the cursor advances only when a run succeeds; a failed run is retried with the next turn;
* :meth:`Extractor.drain` waits, with a timeout, for the run in flight and its trailing run.

A run is written once, as a generator of model requests, and driven by a sync or async loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from memdir.background.file_tools import Denial, MemoryFileTools
from memdir.background.loop import AgentRun, agent_steps
from memdir.conversation import ConversationMessage, parse_message_json
from memdir.errors import ConfigError, MemdirError
from memdir.extract.cursor import save_cursor
from memdir.extract.prompt import ExtractionPromptConfig, build_conversation_message, build_extraction_prompt
from memdir.extract.result import ExtractionResult, memory_paths, team_paths
from memdir.extract.window import window_since
from memdir.llm.base import ChatModel, ChatRequest, Completion, Message
from memdir.llm.steps import arun_steps, run_steps
from memdir.paths import team_mem_path
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.llm_selector import prefilter_candidates
from memdir.recall.manifest import format_manifest
from memdir.recall.selector_protocol import Selector
from memdir.settings_table import DEFAULT_SETTINGS
from memdir.store.directory import MemoryDir
from memdir.templates import render_template

__all__ = ["DEFAULT_MAX_TURNS", "NO_NEW_MESSAGES", "Conversation", "Extractor"]

log = logging.getLogger("memdir.extract")

DEFAULT_MAX_TURNS = 5
DEFAULT_DRAIN_TIMEOUT = 60.0
NO_NEW_MESSAGES = "no new messages since the last extraction"

Conversation = Sequence[ConversationMessage] | Sequence[Mapping[str, object]]
"""Parsed messages, or messages in memdir's JSON shape ({"role", "content", ...} dicts)."""

_Steps = Generator[ChatRequest, Completion, ExtractionResult]


def _as_messages(conversation: Conversation) -> list[ConversationMessage]:
    items = list(conversation)
    if all(isinstance(item, ConversationMessage) for item in items):
        return [item for item in items if isinstance(item, ConversationMessage)]
    return parse_message_json(items, source="conversation")


class Extractor:
    """Extraction for one conversation: cursor, throttle, coalescing and the runs themselves."""

    def __init__(
        self,
        model: ChatModel,
        memory_dir: MemoryDir,
        *,
        team_enabled: bool = False,
        skip_index: bool = False,
        nested_frontmatter: bool = False,
        links: bool = False,
        every_turns: int = 1,
        max_turns: int = DEFAULT_MAX_TURNS,
        manifest_limit: int | None = DEFAULT_SETTINGS.extract_prefilter,
        max_tokens: int = 4096,
        timeout: float = 120.0,
        cursor: str | None = None,
        cursor_file: str | None = None,
        clock: Callable[[], float] = time.time,
        on_result: Callable[[ExtractionResult], None] | None = None,
        disabled_reason: str | None = None,
        session_id: str | None = None,
        writer_ranker: Callable[[], Selector] | None = None,
    ) -> None:
        if every_turns < 1 or max_turns < 1:
            raise ConfigError(
                f"every_turns ({every_turns}) and max_turns ({max_turns}) must be at least 1", rule="settings"
            )
        self.model = model
        self.memory_dir = memory_dir
        self.prompt_config = ExtractionPromptConfig(
            memory_dir=memory_dir.path,
            team_dir=team_mem_path(memory_dir.path) if team_enabled else None,
            skip_index=skip_index,
            max_turns=max_turns,
            nested_frontmatter=nested_frontmatter,
            links=links,
        )
        self.every_turns = every_turns
        self.max_turns = max_turns
        self.manifest_limit = manifest_limit
        self._ranker = LexicalSelector()
        self.writer_ranker = writer_ranker  # how a new file is checked against the store (similar.py)
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.cursor_file = cursor_file
        self.clock = clock
        self.on_result = on_result
        self.disabled_reason = disabled_reason  # set: every run is skipped with this reason
        self.session_id = session_id  # the conversation's id, when known: recorded with every write
        self.results: list[ExtractionResult] = []
        self._cursor = cursor
        self._turns_since = 0
        self._cond = threading.Condition()
        self._in_progress = False
        self._pending: list[ConversationMessage] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def cursor(self) -> str | None:
        return self._cursor

    # -- one run, written once -----------------------------------------------------------------
    def _advance(self, uuid: str | None) -> None:
        if uuid is None or uuid == self._cursor:
            return
        self._cursor = uuid
        if self.cursor_file is not None:
            save_cursor(self.cursor_file, uuid)

    def _steps(self, messages: list[ConversationMessage], *, trailing: bool, throttle: bool) -> _Steps:
        window = window_since(messages, self._cursor, self.memory_dir.path)
        base = ExtractionResult(message_count=window.count, trailing=trailing)
        if self.disabled_reason is not None:
            return replace(base, skipped=self.disabled_reason, cursor=self._cursor)
        if window.count == 0:
            return replace(base, skipped=NO_NEW_MESSAGES, cursor=self._cursor)
        if window.memory_write is not None:
            self._advance(window.last_uuid)
            log.info("extraction skipped: the main agent wrote memory (%s)", window.memory_write)
            return replace(
                base,
                skipped=f"the main agent already wrote memory since the last extraction ({window.memory_write})",
                cursor=self._cursor,
            )
        if throttle and not trailing:
            self._turns_since += 1
            if self._turns_since < self.every_turns:
                return replace(
                    base,
                    skipped=f"throttled: runs every {self.every_turns} turns ({self._turns_since} so far)",
                    cursor=self._cursor,
                )
            self._turns_since = 0
        system = build_extraction_prompt(
            self.prompt_config, manifest=self._manifest(window.messages), message_count=window.count
        )
        today = datetime.fromtimestamp(self.clock()).date().isoformat()
        user = build_conversation_message(window.messages, message_count=window.count, today=today)
        tools = MemoryFileTools(self.memory_dir, clock=self.clock, show_near=True, writer_ranker=self.writer_ranker)
        tool_set = tools.tools()
        started = [0]
        error: str | None = None
        run = AgentRun()
        try:
            run = yield from agent_steps(
                system=system,
                messages=(Message(role="user", text=user),),
                tools=tool_set,
                max_turns=self.max_turns,
                max_tokens=self.max_tokens,
                timeout=self.timeout,
                on_turn=lambda n: started.__setitem__(0, n),
            )
        except (MemdirError, OSError) as exc:
            error = exc.message if isinstance(exc, MemdirError) else f"{type(exc).__name__}: {exc}"
            log.warning("extraction failed after %d turn(s); the cursor stays: %s", started[0], error)
        else:
            self._advance(window.last_uuid)
        written = memory_paths(tools.written)
        if written and not self.prompt_config.skip_index:
            # The model writes files with raw tools and is asked to add their index lines; when it
            # forgets, the memory exists but MEMORY.md does not know it. Add what is missing.
            try:
                self.memory_dir.add_missing_index_lines(written)
            except MemdirError as exc:
                log.warning("extraction could not add index lines: %s", exc.message)
        offered = {tool.spec.name for tool in tool_set}
        refused = [Denial(call.name, outcome.content) for call, outcome in run.calls if call.name not in offered]
        return replace(
            base,
            written=written,
            deleted=tuple(tools.deleted),
            team_count=team_paths(written, self.memory_dir.root),
            turns=run.turns if error is None else started[0],
            denied=(*tools.denials, *refused),
            error=error,
            stopped=run.stopped if error is None else None,
            cursor=self._cursor,
            usage=run.usage,
        )

    def _manifest(self, messages: Sequence[ConversationMessage]) -> str:
        """The existing memories the agent is shown, so it updates rather than duplicates.

        A large store is cut down to the memories the offline ranking relates to these messages
        (then the newest): those are the ones a new memory might duplicate, and listing every file
        in each of the run's calls would cost far more than the run itself.
        """
        headers = self.memory_dir.scan()
        limit = self.manifest_limit
        if limit is None or len(headers) <= limit:
            return format_manifest(headers)
        query = "\n".join(m.text for m in messages if m.role in ("user", "assistant") and not m.is_meta)
        shown = prefilter_candidates(query, headers, keep=limit, ranker=self._ranker)
        cut = render_template("extract_manifest_cut", shown=str(len(shown)), total=str(len(headers)))
        return f"{format_manifest(shown)}\n\n{cut}"

    # A model or file error ends the run inside the generator, which reports it in the result.
    def _drive(self, steps: _Steps) -> ExtractionResult:
        with self._as_extraction():
            return run_steps(steps, self.model.complete, catch=(MemdirError,))

    async def _adrive(self, steps: _Steps) -> ExtractionResult:
        with self._as_extraction():
            return await arun_steps(steps, self.model.acomplete, catch=(MemdirError,))

    def _as_extraction(self) -> contextlib.AbstractContextManager[object]:
        """A run's writes are recorded as extraction: as the caller said (``memdir extract``, a
        framework adapter: ``extract:...``), else ``extract:<session id>`` when the extractor was
        given one, else ``extract:<whoever called>`` (``extract:api``), one run each."""
        from memdir.store.provenance import acting_as, current

        outer = current()
        if outer.by.startswith("extract:"):
            if self.session_id is None or outer.session is not None:
                return contextlib.nullcontext()
            return acting_as(outer.by, run=outer.run, label=outer.label, session=self.session_id)
        return acting_as(f"extract:{self.session_id or outer.by}", label="extract", session=self.session_id)

    def _record(self, result: ExtractionResult) -> ExtractionResult:
        self.results.append(result)
        if result.written or result.deleted:
            log.info("extraction: %s", result.summary())
        if self.on_result is not None:
            try:
                self.on_result(result)
            except Exception:  # the caller's callback must not wedge the run loop
                log.exception("the on_result callback of an extractor failed")
        return result

    # -- direct runs -------------------------------------------------------------------------
    def run_once(self, conversation: Conversation, *, throttle: bool = False) -> ExtractionResult:
        """One run now, in this thread (for the CLI and hooks); the throttle applies only if asked.

        Model and file errors are reported in the result; the cursor then stays where it was.
        Direct runs do not coalesce: use them instead of :meth:`submit`, not alongside it.
        """
        return self._record(self._drive(self._steps(_as_messages(conversation), trailing=False, throttle=throttle)))

    async def arun_once(self, conversation: Conversation, *, throttle: bool = False) -> ExtractionResult:
        steps = self._steps(_as_messages(conversation), trailing=False, throttle=throttle)
        return self._record(await self._adrive(steps))

    # -- background runs with coalescing -----------------------------------------------------
    def _claim(self, messages: list[ConversationMessage]) -> bool:
        with self._cond:
            if self._in_progress:
                self._pending = messages
                log.debug("extraction in progress; this turn's conversation waits for a trailing run")
                return False
            self._in_progress = True
            return True

    def _take_pending(self) -> list[ConversationMessage] | None:
        with self._cond:
            pending, self._pending = self._pending, None
            if pending is None:
                self._in_progress = False
                self._cond.notify_all()
            return pending

    def _failed(self, exc: Exception, trailing: bool) -> ExtractionResult:
        log.exception("extraction crashed; the cursor stays")
        return ExtractionResult(error=f"{type(exc).__name__}: {exc}", trailing=trailing, cursor=self._cursor)

    def _work(self, messages: list[ConversationMessage]) -> None:
        current: list[ConversationMessage] | None = messages
        trailing = False
        while current is not None:
            try:
                self._record(self._drive(self._steps(current, trailing=trailing, throttle=True)))
            except Exception as exc:  # noqa: BLE001  (logged and recorded: a background run must not kill the agent)
                self._record(self._failed(exc, trailing))
            current, trailing = self._take_pending(), True

    async def _awork(self, messages: list[ConversationMessage]) -> None:
        current: list[ConversationMessage] | None = messages
        trailing = False
        while current is not None:
            try:
                self._record(await self._adrive(self._steps(current, trailing=trailing, throttle=True)))
            except Exception as exc:  # noqa: BLE001  (logged and recorded: a background run must not kill the agent)
                self._record(self._failed(exc, trailing))
            current, trailing = self._take_pending(), True

    def submit(self, conversation: Conversation) -> bool:
        """After a completed turn: run in a background thread, or stash for the trailing run.

        Returns True when a run started, False when the conversation was stashed.
        """
        messages = _as_messages(conversation)
        if not self._claim(messages):
            return False
        # The run keeps the caller's context: its writes are recorded with the caller's provenance.
        context = contextvars.copy_context()
        threading.Thread(target=context.run, args=(self._work, messages), name="memdir-extract", daemon=True).start()
        return True

    def asubmit(self, conversation: Conversation) -> bool:
        """:meth:`submit` for asyncio: the run is a task on the running loop."""
        messages = _as_messages(conversation)
        loop = asyncio.get_running_loop()
        if not self._claim(messages):
            return False
        task = loop.create_task(self._awork(messages), name="memdir-extract")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    @property
    def busy(self) -> bool:
        with self._cond:
            return self._in_progress

    def drain(self, timeout: float = DEFAULT_DRAIN_TIMEOUT) -> bool:
        """Wait for the run in flight and its trailing run; False if they are still going at the timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._in_progress, timeout)

    async def adrain(self, timeout: float = DEFAULT_DRAIN_TIMEOUT) -> bool:
        deadline = time.monotonic() + timeout
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
        if self.busy:  # a run started by submit() in a thread
            return await asyncio.to_thread(self.drain, max(0.0, deadline - time.monotonic()))
        return True
