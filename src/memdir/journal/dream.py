"""The dream: a model distils daily logs and recent sessions into topic files and the index.

A dream is a background agent with memdir's sandboxed file tools: full access to the memory
directory, read-only access to the session transcripts under differently named tools (so a model
cannot confuse the two places, and no transcript can be changed). It runs under the consolidation
lock; a dream that fails rolls the lock back so the gate still sees the previous consolidation.

The turn budget (``memdir.dreamMaxTurns``, default 30) bounds the cost of one run: orienting,
reading a few days of logs, checking a handful of transcripts and rewriting several files fits in
it when the model batches independent tool calls, and a confused model cannot loop for long.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from memdir.background.file_tools import FileTool, MemoryFileTools
from memdir.background.loop import AgentRun, ToolOutcome, agent_steps, arun_agent, run_agent
from memdir.config import MemoryConfig, agent_memory_dir, open_dream_dir
from memdir.errors import MemdirError, ModelNotConfigured
from memdir.journal.daily_log import list_logs
from memdir.journal.gate import DreamGate, GateDecision, sessions_since
from memdir.journal.lock import ConsolidationLock
from memdir.llm.base import ChatModel, ChatRequest, Completion, Message
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.memory_type import FrontmatterLayout
from memdir.store.directory import MemoryDir
from memdir.store.files import read_bytes_limited
from memdir.store.provenance import Provenance, acting_as, new_run_id
from memdir.store.scan import LOGS_DIRNAME
from memdir.templates import frontmatter_type, render_template

__all__ = ["DreamReport", "arun_dream", "run_dream"]

log = logging.getLogger("memdir.journal")

_TRANSCRIPT_TOOLS = {
    "Read": "ReadTranscript",
    "Grep": "GrepTranscripts",
    "Glob": "GlobTranscripts",
    "LS": "LSTranscripts",
}
_TRANSCRIPT_MAX_BYTES = 64_000_000

# (turn number, max turns) after each model call is requested.
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class DreamReport:
    """What a dream decided and did. ``improved`` lists topic files written or deleted
    (relative paths); index files that changed are listed apart in ``index_files``."""

    ran: bool
    reason: str
    sessions: tuple[str, ...] = ()
    logs: tuple[str, ...] = ()
    improved: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    index_files: tuple[str, ...] = ()
    turns: int = 0
    stopped: str = ""
    summary: str = ""
    dry_run: bool = False

    def as_json(self) -> dict[str, object]:
        return {
            "ran": self.ran,
            "reason": self.reason,
            "dry_run": self.dry_run,
            "sessions": list(self.sessions),
            "logs": list(self.logs),
            "improved": list(self.improved),
            "deleted": list(self.deleted),
            "index_files": list(self.index_files),
            "turns": self.turns,
            "stopped": self.stopped,
            "summary": self.summary,
        }


class _TranscriptDir(MemoryDir):
    """Transcripts are JSON lines, often far larger than a memory file; read them with a higher cap."""

    def read_text(self, file: str) -> str:
        return read_bytes_limited(self.resolve(file), max_bytes=_TRANSCRIPT_MAX_BYTES).decode("utf-8", "replace")


def _renamed(tool: FileTool, name: str, where: str) -> FileTool:
    spec = dataclasses.replace(
        tool.spec, name=name, description=tool.spec.description.replace("the memory directory", where)
    )
    return FileTool(spec, tool.run)


def _protect_logs(tool: FileTool, memory: MemoryDir) -> FileTool:
    """Daily logs are an append-only record: the dream reads them but never rewrites or deletes them."""
    logs_root = os.path.join(memory.root, LOGS_DIRNAME) + os.sep
    real_logs_root = os.path.join(os.path.realpath(memory.root), LOGS_DIRNAME) + os.sep

    def run(arguments: Mapping[str, object]) -> ToolOutcome:
        raw = arguments.get("file_path")
        if isinstance(raw, str):
            try:
                target = memory.resolve(raw)
            except MemdirError:
                target = ""
            if target and (target.startswith(logs_root) or os.path.realpath(target).startswith(real_logs_root)):
                return ToolOutcome(f"{raw} is a daily log; logs are append-only and are never changed", is_error=True)
        return tool(arguments)

    return FileTool(tool.spec, run)


def _as_dream() -> contextlib.AbstractContextManager[Provenance]:
    """Every change the dream makes is recorded as ``dream:<run id>``, one run per dream."""
    run = new_run_id()
    return acting_as(f"dream:{run}", run=run, label="dream")


def _tools(config: MemoryConfig, direct: MemoryDir) -> tuple[MemoryFileTools, list[FileTool]]:
    memory = agent_memory_dir(config, direct)
    # The dream checks new files against the store with BM25: it runs offline, often on a schedule,
    # and never loads the sentence encoder for it.
    memory_tools = MemoryFileTools(memory, show_near=True)
    tools = [
        _protect_logs(tool, memory) if tool.spec.name in ("Write", "Edit", "Delete") else tool
        for tool in memory_tools.tools()
    ]
    transcripts = MemoryFileTools(_TranscriptDir(config.transcripts_dir), allowed=tuple(_TRANSCRIPT_TOOLS))
    where = "the session transcripts directory (read-only)"
    tools.extend(_renamed(tool, _TRANSCRIPT_TOOLS[tool.spec.name], where) for tool in transcripts.tools())
    return memory_tools, tools


def _max_turns(config: MemoryConfig, override: int | None) -> int:
    """The caller's ``max_turns``, else ``memdir.dreamMaxTurns`` (checked with the settings)."""
    if override is None:
        return config.memdir.dream_max_turns
    if isinstance(override, bool) or not isinstance(override, int) or override < 1:
        raise ValueError(f"max_turns must be a positive integer, not {override!r}")
    return override


def _bullets(items: tuple[str, ...] | list[str]) -> str:
    return "\n".join(f"- {item}" for item in items) or "- (none)"


@dataclass
class _Plan:
    decision: GateDecision | None
    sessions: tuple[str, ...]
    logs: tuple[str, ...]


def _plan(
    config: MemoryConfig,
    direct: MemoryDir,
    *,
    force: bool,
    gate: DreamGate | None,
    current_session: str | None,
    clock: Callable[[], float],
) -> _Plan:
    logs = tuple(list_logs(direct))
    if force:
        last = ConsolidationLock(config.memory_dir, clock=clock).last_consolidated_at()
        sessions = tuple(sessions_since(config.transcripts_dir, last, exclude=current_session))
        return _Plan(None, sessions, logs)
    decision = (gate or DreamGate(config, clock=clock)).check(current_session=current_session)
    return _Plan(decision, decision.sessions, logs)


def _report(config: MemoryConfig, plan: _Plan, tools: MemoryFileTools, run: AgentRun) -> DreamReport:
    root = config.memory_dir

    def rel(path: str) -> str:
        return os.path.relpath(path, root).replace(os.sep, "/")

    written = [rel(p) for p in tools.written]
    deleted = [rel(p) for p in tools.deleted]
    index = tuple(p for p in written if os.path.basename(p) == ENTRYPOINT_NAME)
    return DreamReport(
        ran=True,
        reason="consolidated" if run.stopped == "done" else "stopped at the turn limit",
        sessions=plan.sessions,
        logs=plan.logs,
        improved=tuple(p for p in written if p not in index),
        deleted=tuple(deleted),
        index_files=index,
        turns=run.turns,
        stopped=run.stopped,
        summary=run.final_text,
    )


@dataclass
class _Prepared:
    """A dream that holds the lock and is ready to run: its agent steps and how to finish."""

    config: MemoryConfig
    plan: _Plan
    lock: ConsolidationLock
    prior: float
    memory_tools: MemoryFileTools
    steps: Generator[ChatRequest, Completion, AgentRun]

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Around the model's run: changes are recorded as this dream's, and a failure rolls the
        consolidation lock back before it propagates."""
        try:
            with _as_dream():
                yield
        except BaseException:
            self.lock.rollback(self.prior)
            log.warning("dream of %s failed; consolidation lock rolled back", self.config.memory_dir)
            raise

    def report(self, run: AgentRun) -> DreamReport:
        return _report(self.config, self.plan, self.memory_tools, run)


class _Options(NamedTuple):
    """The options of :func:`run_dream` and :func:`arun_dream`, in their order."""

    force: bool
    dry_run: bool
    gate: DreamGate | None
    current_session: str | None
    clock: Callable[[], float]
    max_turns: int | None
    on_progress: ProgressCallback | None


def _prompts(config: MemoryConfig, plan: _Plan, turns: int) -> tuple[str, str]:
    """The dream's system prompt and its task (the sessions and logs to read)."""
    rules = config.claude_code.rules
    system = render_template(
        "dream_consolidation",
        memoryDir=config.memory_dir,
        transcriptsDir=config.transcripts_dir,
        maxTurns=str(turns),
        linkRule="\n- " + render_template("memory_links") if rules.links_memories else "",
        typeField=frontmatter_type(
            nested=rules.frontmatter is FrontmatterLayout.NESTED,
            value="user | feedback | project | reference",
            indent="  ",
        ),
    )
    task = render_template(
        "dream_task",
        sessionCount=str(len(plan.sessions)),
        sessions=_bullets(plan.sessions),
        logCount=str(len(plan.logs)),
        logs=_bullets(plan.logs),
    )
    return system, task


def _prepare(
    config: MemoryConfig, options: _Options, memory_dir: MemoryDir | None, *, has_model: bool
) -> DreamReport | _Prepared:
    """Everything before the model runs: the gate (unless forced), the dry run, the lock, the prompt."""
    force, dry_run, gate, current_session, clock, max_turns, on_progress = options
    if not config.enabled:
        return DreamReport(False, f"auto memory is disabled ({config.disabled_reason})", dry_run=dry_run)
    if config.memdir.agent_writes == "off":
        return DreamReport(False, "agents may not change memory (memdir.agentWrites is off)", dry_run=dry_run)
    turns = _max_turns(config, max_turns)
    direct = memory_dir if memory_dir is not None else open_dream_dir(config)
    plan = _plan(config, direct, force=force, gate=gate, current_session=current_session, clock=clock)
    if plan.decision is not None and not plan.decision.run:
        return DreamReport(False, plan.decision.reason, plan.sessions, plan.logs, dry_run=dry_run)
    reason = plan.decision.reason if plan.decision is not None else "forced"
    if dry_run:
        return DreamReport(False, f"would dream: {reason}", plan.sessions, plan.logs, dry_run=True)
    if not has_model:
        raise ModelNotConfigured(
            f"a dream is due ({reason}) but no model is configured: pass --model PROVIDER:MODEL, set MEMDIR_MODEL, "
            'or put "model" in the "memdir" object of your settings (see docs/models.md)'
        )
    lock = ConsolidationLock(config.memory_dir, clock=clock)
    prior = lock.try_acquire()
    if prior is None:
        return DreamReport(
            False, f"another process (PID {lock.holder()}) is consolidating this memory", plan.sessions, plan.logs
        )
    try:
        memory_tools, tools = _tools(config, direct)
        system, task = _prompts(config, plan, turns)
        steps = agent_steps(
            system=system,
            messages=[Message(role="user", text=task)],
            tools=tools,
            max_turns=turns,
            max_tokens=8192,
            on_turn=(lambda turn: on_progress(turn, turns)) if on_progress is not None else None,
        )
    except BaseException:
        lock.rollback(prior)
        raise
    return _Prepared(config, plan, lock, prior, memory_tools, steps)


def run_dream(
    config: MemoryConfig,
    model: ChatModel | None,
    *,
    force: bool = False,
    dry_run: bool = False,
    gate: DreamGate | None = None,
    current_session: str | None = None,
    clock: Callable[[], float] = time.time,
    max_turns: int | None = None,
    on_progress: ProgressCallback | None = None,
    memory_dir: MemoryDir | None = None,
) -> DreamReport:
    """Consolidate the memory of ``config`` if the gate says it is due (or ``force``), in
    ``memory_dir`` (the session gives its :func:`~memdir.config.open_dream_dir`; one is opened so
    when none is given).

    ``force`` skips the gate but still takes the lock; ``dry_run`` reports the gate's decision and
    the sessions a dream would read without calling the model. ``model`` may be None when no
    dream is expected (a due dream then raises :class:`ModelNotConfigured`). A model error rolls
    the lock back and propagates.
    """
    options = _Options(force, dry_run, gate, current_session, clock, max_turns, on_progress)
    prepared = _prepare(config, options, memory_dir, has_model=model is not None)
    if isinstance(prepared, DreamReport):
        return prepared
    assert model is not None
    with prepared.running():
        run = run_agent(model, prepared.steps)
    return prepared.report(run)


async def arun_dream(
    config: MemoryConfig,
    model: ChatModel | None,
    *,
    force: bool = False,
    dry_run: bool = False,
    gate: DreamGate | None = None,
    current_session: str | None = None,
    clock: Callable[[], float] = time.time,
    max_turns: int | None = None,
    on_progress: ProgressCallback | None = None,
    memory_dir: MemoryDir | None = None,
) -> DreamReport:
    """:func:`run_dream` with an asynchronous model."""
    options = _Options(force, dry_run, gate, current_session, clock, max_turns, on_progress)
    prepared = _prepare(config, options, memory_dir, has_model=model is not None)
    if isinstance(prepared, DreamReport):
        return prepared
    assert model is not None
    with prepared.running():
        run = await arun_agent(model, prepared.steps)
    return prepared.report(run)
