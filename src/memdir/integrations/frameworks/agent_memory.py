"""What every agent-framework adapter takes from memdir, with no framework imported.

LangGraph, pydantic-ai, the OpenAI Agents SDK and Google ADK each have their own seam for
long-term memory, but what memdir puts behind those seams is the same: the memory section of
the system prompt and the ``MEMORY.md`` index, the per-turn recall of the latest user message
(the reminders Claude Code's prompt hook adds, each memory shown once per conversation), the
four tools a model uses to keep its memory (recall, remember, update, forget), and extraction
after a run with the session's model. :class:`AgentMemory` holds one :class:`MemorySession`
and gives each of these as plain strings and dicts; the adapters only translate.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import os
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from memdir.config import MemoryConfig, resolve_config
from memdir.errors import ConfigError, IndexFullWarning
from memdir.integrations.frameworks.user_dirs import user_memory_dir
from memdir.memory_session import MemorySession
from memdir.store.provenance import acting_as
from memdir.tools.declared import AGENT_TOOLS, Tool, tool_function
from memdir.tools.outcome import Outcome
from memdir.tools.toolbox import MemoryToolbox

if TYPE_CHECKING:
    from memdir.extract.extractor import Extractor
    from memdir.llm.base import ChatModel
    from memdir.store.records import SaveResult

__all__ = [
    "WRITE_TOOLS",
    "AgentMemory",
    "Reminder",
    "note_index_refused",
    "open_session",
    "place_reminders",
    "tool_functions",
]

# Tool calls that mean the agent kept its memory itself in a run, so extraction leaves that run alone
# (Claude Code skips extraction when the main agent wrote to the memory directory): the tools that
# write, and Anthropic's memory tool.
WRITE_TOOLS = frozenset({tool.name for tool in AGENT_TOOLS if not tool.hints.read_only} | {"memory"})

_runs = itertools.count(1)
log = logging.getLogger("memdir")
_told: set[str] = set()  # the indexes whose refusal this process has warned about


class Reminder(NamedTuple):
    """A recall reminder a conversation was shown, and the user message it came after."""

    prompt: str
    text: str


def note_index_refused(result: SaveResult, *, warn: bool = False) -> str | None:
    """When a save got no ``MEMORY.md`` line (the index is full), say so; returns the text, for a
    tool's answer (a model is told every time). The first time for an index in a process, it is a
    logged warning and, with ``warn``, a Python warning (:class:`~memdir.errors.IndexFullWarning`),
    for the calls whose answer has no place for it (a store's ``put``); after that a logged line
    at INFO, so that loading 10,000 items into a full index does not print 10,000 warnings."""
    text = result.index_warning
    if text is not None:
        _tell(result.path[: len(result.path) - len(result.file)] + result.index_file, text, warn=warn)
    return text


def _tell(index: str, text: str, *, warn: bool) -> None:
    first = index not in _told
    _told.add(index)
    log.log(logging.WARNING if first else logging.INFO, "%s", text)
    if warn and first:
        warnings.warn(text, IndexFullWarning, stacklevel=4)


def place_reminders(prompts: Sequence[str], shown: Sequence[Reminder]) -> dict[int, list[str]]:
    """Where each reminder goes among a conversation's user messages (``prompts``, in order, the
    latest last): after the latest message it came after, or after the latest message when its
    own is gone (a trimmed history). Position in ``prompts`` -> reminder texts, in the order shown."""
    placed: dict[int, list[str]] = {}
    if not prompts:
        return placed
    last = {prompt: index for index, prompt in enumerate(prompts)}
    for reminder in shown:
        placed.setdefault(last.get(reminder.prompt, len(prompts) - 1), []).append(reminder.text)
    return placed


def open_session(
    memory_dir: str | os.PathLike[str] | None = None,
    *,
    session: MemorySession | None = None,
    config: MemoryConfig | None = None,
    project: str | None = None,
    model: ChatModel | None = None,
    model_spec: str | None = None,
    selector_kind: str | None = None,
    user_id: str | None = None,
) -> MemorySession:
    """The session an adapter works through: the one given, else one over ``memory_dir`` (used as
    is), else over the project's directory as Claude Code resolves it (``project``, default the
    working directory), so an agent and Claude Code share one memory. A session built here recalls
    with the prompt hook's selector (``memdir.hookSelector``, offline unless set otherwise): the
    adapters recall before every model call, where the hook does before every prompt.

    ``user_id`` picks one user's directory: ``memory_dir`` then names ``{user_id}``
    (``"/srv/memories/{user_id}"``), which becomes a directory name safe for any id
    (:mod:`memdir.integrations.frameworks.user_dirs`)."""
    if session is not None:
        if memory_dir is not None or config is not None or user_id is not None:
            raise ValueError("pass session, or memory_dir/config/user_id to build one, not both")
        return session
    if memory_dir is not None:
        memory_dir = user_memory_dir(memory_dir, user_id)
    elif user_id is not None:
        raise ConfigError(
            "user_id needs a memory_dir that names {user_id} (e.g. '/srv/memories/{user_id}'): the project's "
            "directory is one memory, shared with Claude Code",
            rule="memory-dir-template",
        )
    if config is None:
        config = resolve_config(project, memory_dir=os.fspath(memory_dir) if memory_dir is not None else None)
    built = MemorySession(config, model=model, model_spec=model_spec, selector_kind=selector_kind, hook_selector=True)
    built.selected_kind()  # a wrong kind is reported here, not at the first recall
    return built


def _logged(outcome: Outcome, root: str) -> Outcome:
    """A tool's save, with the index's refusal logged for the developer (the model reads it in the
    answer), as :func:`note_index_refused` logs it."""
    warning, index = outcome.payload.get("index_warning"), outcome.payload.get("index_file")
    if isinstance(warning, str) and isinstance(index, str):
        _tell(os.path.join(root, index), warning, warn=False)
    return outcome


def _outcome_text(outcome: Outcome) -> str:
    if outcome.text is not None:
        return outcome.text
    return json.dumps(outcome.payload, ensure_ascii=False)


class AgentMemory:
    """memdir for one agent conversation, as plain values: instructions, per-turn reminders, the
    four tools, and extraction after a run.

    ``extract``: None extracts after a run when the session has a model configured (``model=``,
    ``MEMDIR_MODEL`` or ``memdir.model``), True requires one (without it, building this raises
    :class:`~memdir.errors.ModelNotConfigured`), False never extracts."""

    def __init__(self, session: MemorySession, *, extract: bool | None = None, by: str = "api") -> None:
        """``by`` is who the memory history records the tools' writes as (the framework's name);
        extraction's writes are recorded as ``extract:<by>``."""
        self.session = session
        self.extract = extract
        self.by = by
        self.toolbox: MemoryToolbox = session.toolbox  # memdir.agentWrites: direct, proposals, or refused
        self._lock = threading.Lock()
        self._turn: tuple[str, tuple[str, ...]] | None = None
        self._extractor: Extractor | None = None
        self._pending: list[dict[str, Any]] = []
        self._seen: set[str] = set()
        self._shown: list[Reminder] = []
        if extract is True:
            # Required: a missing model is reported now, not after a run's model calls are spent.
            self._extractor = session.extractor()

    # -- what the model is shown -------------------------------------------------------------
    def instructions(self) -> str | None:
        """The memory section of the system prompt followed by the ``MEMORY.md`` index block: both
        stay the same for the whole conversation (until :meth:`clear`), which keeps the model's
        prompt cache warm. None when auto memory is disabled."""
        section = self.session.system_prompt_section()
        if section is None:
            return None
        context = self.session.user_context()
        return f"{section}\n\n{context}" if context else section

    def reminders(self, user_text: str) -> tuple[str, ...]:
        """The recall reminders for the latest user message, computed once per message: asked again
        for the same message (each model call of one turn), the same reminders come back, and a
        memory already shown in this conversation is not recalled again on a later turn (it stays
        in :meth:`in_view`)."""
        with self._lock:
            if self._turn is not None and self._turn[0] == user_text:
                return self._turn[1]
            result = self.session.recall(user_text)
            self._turn = (user_text, tuple(result.reminders))
            self._shown.extend(Reminder(user_text, text) for text in result.reminders)
            return self._turn[1]

    def in_view(self, user_text: str) -> tuple[Reminder, ...]:
        """Every reminder this conversation has been shown, in order, those of the latest user
        message (``user_text``, recalled now if it is new) last. A memory shown once stays in view
        for the rest of the conversation: frameworks that do not keep the reminders in the history
        they hand back (pydantic-ai after 2.0, the Agents SDK) get each one again after its message
        (:func:`place_reminders`), and the model sees on the tenth turn what it saw on the first."""
        self.reminders(user_text)
        with self._lock:
            return tuple(self._shown)

    def shown_texts(self) -> frozenset[str]:
        """The text of every reminder shown so far (extraction marks these messages as memdir's own)."""
        with self._lock:
            return frozenset(reminder.text for reminder in self._shown)

    def clear(self) -> None:
        """A new conversation: rebuild the instructions and show every memory again."""
        with self._lock:
            self._turn = None
            self._shown.clear()
        self.session.clear()

    # -- the tools ---------------------------------------------------------------------------
    def tool_method(self, tool: Tool) -> Callable[..., Outcome]:
        """The toolbox's method of ``tool``, its writes recorded as this conversation's (``by``)
        and an index's refusal logged for the developer (the model reads it in the answer)."""
        method: Callable[..., Outcome] = getattr(self.toolbox, tool.method)
        if tool.hints.read_only:
            return method

        @functools.wraps(method)
        def acting(*args: Any, **kwargs: Any) -> Outcome:
            with acting_as(self.by, label=f"{self.by} {tool.name}"):
                outcome = method(*args, **kwargs)
            return _logged(outcome, self.session.memory_dir.path)

        return acting

    # -- extraction ----------------------------------------------------------------------------
    def _extraction_on(self) -> bool:
        if self.extract is False:
            return False
        return self.extract is True or self.session.model_spec is not None

    @property
    def extractor(self) -> Extractor:
        """The extraction agent of this conversation, built on first use with the session's model."""
        with self._lock:
            if self._extractor is None:
                self._extractor = self.session.extractor()
            return self._extractor

    def after_run(self, messages: Sequence[Mapping[str, Any]]) -> bool:
        """Hand one run's new messages (memdir's message JSON) to extraction, in a background thread.

        Skipped when extraction is off, when the run has no user message, and when the agent kept
        its memory itself in this run (a call to remember, update, forget or the memory tool). The
        runs not yet extracted are kept and handed over together, so a run that ends while
        extraction is busy with the one before is extracted by the trailing run, not dropped. A
        message with a ``uuid`` already handed over (a framework that passes the whole history
        each run) is not handed over again; one without gets a new one.
        Returns whether a run was started or queued."""
        if not self._extraction_on():
            return False
        with self._lock:
            run = next(_runs)
            fresh = [
                {**message, "uuid": str(message.get("uuid") or f"run{run}-{i}")}
                for i, message in enumerate(messages)
                if not message.get("uuid") or str(message["uuid"]) not in self._seen
            ]
            self._seen.update(message["uuid"] for message in fresh)
        if any(_called_a_write_tool(message) for message in fresh):
            return False
        if not any(message.get("role") == "user" for message in fresh):
            return False
        extractor = self.extractor
        with self._lock:
            self._pending.extend(fresh)
            cursor = extractor.cursor
            done = next((i for i, message in enumerate(self._pending) if message["uuid"] == cursor), None)
            if done is not None:
                # Messages up to the cursor were extracted; without the cursor in the list, the
                # extractor takes the whole list, which is then exactly what is left.
                del self._pending[: done + 1]
            conversation = list(self._pending)
        with acting_as(f"extract:{self.by}", label="extract"):
            extractor.submit(conversation)
        return True

    def drain(self, timeout: float = 60.0) -> bool:
        """Wait for extraction in flight (and its trailing run); False if still running at the timeout."""
        return self._extractor.drain(timeout) if self._extractor is not None else True


def _called_a_write_tool(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    if message.get("role") != "assistant" or not isinstance(content, list):
        return False
    return any(
        isinstance(block, Mapping) and block.get("type") == "tool_use" and block.get("name") in WRITE_TOOLS
        for block in content
    )


def tool_functions(memory: AgentMemory) -> tuple[tuple[Tool, Callable[..., str]], ...]:
    """The four tools a framework gives a model (:data:`~memdir.tools.declared.AGENT_TOOLS`), each
    with a plain function that answers in text: named and typed as declared (the advertised
    argument names, the aliases models use, what each is for; the arguments a schema requires
    without a default), because each framework builds its tool schema from a function's name and
    signature. So the frameworks' tools are the MCP server's, and every adapter wraps these."""
    return tuple(
        (tool, tool_function(tool, memory.tool_method(tool), _outcome_text, str, optional=False))
        for tool in AGENT_TOOLS
    )
