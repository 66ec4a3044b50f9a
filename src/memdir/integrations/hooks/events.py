"""Claude Code hooks: per-turn recall, background extraction and session notes for Claude Code.

``memdir hook <event>`` reads the hook's JSON from stdin and answers on stdout. What each event does:

* ``session-start``: on ``/clear`` and compaction, forgets which memories recall already showed
  (they left the context). When memdir uses Claude Code's own memory directory, Claude Code
  already puts that ``MEMORY.md`` into context: the hook adds nothing for the model, and tells the
  person in one line (``systemMessage``) when Claude Code will cut the index, with how many
  memories the session will not see. When memdir was pointed at another directory
  (``--memory-dir``), it adds that index as ``additionalContext``.
* ``user-prompt-submit``: recalls the memories relevant to the prompt that this session has not
  been shown, and returns them as ``additionalContext``, rendered so the Claude Code release in
  use shows them cleanly (tagged reminders where tags pass through, plain text where they are
  escaped). The prompt waits for this hook, so it
  ranks offline (no model call) unless the setting ``memdir.hookSelector`` is ``auto`` or ``llm``;
  then a model may answer, within 8 seconds, before the offline ranking takes over.
* ``stop``: when a model is configured, starts ``memdir extract`` on the transcript in the
  background and returns at once (never when ``stop_hook_active``, so it cannot loop). The
  command waits until the transcript holds the turn's last reply, which Claude Code may write
  after running the hook (see :mod:`memdir.integrations.hooks.turn_wait`).
* ``pre-compact``: when a model is configured, starts ``memdir session update`` in the background.
* ``session-end``: like ``stop``, because a turn interrupted by the user never reached its Stop
  hook; runs of one session take turns, and the extractor's cursor makes a repeat find nothing new.

Each start is one line in ``<configHome>/memdir/logs/extract.log`` (or ``session.log``), followed
by the command's own line: what it read, what it wrote, or why it wrote nothing.

``memdir hook --agent codex|gemini <event>`` does the same for Codex CLI and Gemini CLI (their
events, settings and transcripts: :mod:`memdir.integrations.hooks.coding_agents`), on the same memory
directory. They know nothing of that directory, so ``session-start`` gives them the memory section
and the index (again after a Codex compaction, which also starts the session-notes update); recall
is rendered as plain text; and the background commands read the transcript at once, since both
CLIs have the turn on disk before their end-of-turn hook runs.

Every hook fails open: the CLI turns any error into one line on stderr and exit status 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from memdir.config import MemoryConfig, read_environment, resolve_config
from memdir.errors import ConfigError
from memdir.integrations.hooks.coding_agents import CLAUDE_CODE, CodingAgent, find_agent
from memdir.integrations.hooks.state import (
    load_recall_state,
    recall_state_path,
    reset_recall_state,
    save_recall_state,
)
from memdir.memory_session import MemorySession
from memdir.recall.surfacing import render_hook_context

if TYPE_CHECKING:
    from memdir.environment import Environment
    from memdir.integrations.hooks.launch import Launcher

# Each event imports what it uses when it runs: a hook is a fresh process per event, and the
# prompt hook (which the user waits for) needs neither the launcher, the dream gate nor a model.

__all__ = ["HOOK_EVENTS", "HookInput", "HookResult", "run_hook"]

# CLI verb -> Claude Code event name (every verb memdir has; Codex and Gemini CLI use some of them)
HOOK_EVENTS: Mapping[str, str] = CLAUDE_CODE.events


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


class HookInput(NamedTuple):
    """The fields of Claude Code's hook JSON that memdir uses, checked once."""

    event: str
    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    prompt: str | None = None
    source: str | None = None
    stop_hook_active: bool = False
    agent_id: str | None = None
    version: str | None = None  # the Claude Code release, when the input names it
    last_reply: str | None = None  # Stop: the text of the turn's last reply (last_assistant_message)
    prompt_id: str | None = None  # the turn's prompt (2.1.330 and later); transcripts carry it as promptId
    agent: CodingAgent = CLAUDE_CODE  # the CLI that ran the hook

    @classmethod
    def parse(cls, event: str, data: object, agent: CodingAgent = CLAUDE_CODE) -> HookInput:
        """The input of ``agent``'s hook for ``event``. Gemini CLI names the reply
        ``prompt_response`` and puts the context hooks added into the prompt it passes
        (``<hook_context>`` blocks), which recall must not search."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"hook input must be a JSON object, not {type(data).__name__}", rule="hook-input")
        prompt = data.get("prompt") if isinstance(data.get("prompt"), str) else None
        if prompt is not None and agent is not CLAUDE_CODE:
            from memdir.model.hook_context import strip_hook_context

            prompt = strip_hook_context(prompt)
        return cls(
            event=event,
            session_id=_text(data, "session_id"),
            transcript_path=_text(data, "transcript_path"),
            cwd=_text(data, "cwd"),
            prompt=prompt,
            source=_text(data, "source"),
            stop_hook_active=data.get("stop_hook_active") is True,
            agent_id=_text(data, "agent_id"),
            version=_text(data, "version"),
            last_reply=_text(data, "last_assistant_message") or _text(data, "prompt_response"),
            prompt_id=_text(data, "prompt_id"),
            agent=agent,
        )


class HookResult(NamedTuple):
    """What the hook prints (``output``, or nothing) and what it did, for logs and tests."""

    output: dict[str, Any] | None = None
    note: str = ""
    launched: object = None
    # Work left for after the answer is printed (the derived index's check of every file's stat):
    # the console script runs it in a detached copy of its process, so the prompt does not wait.
    after: Callable[[], str] | None = None


def _context(hook: HookInput, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": hook.agent.events[hook.event], "additionalContext": text}}


HOOK_SELECTOR_TIMEOUT = 8.0  # seconds; the installed UserPromptSubmit hook has a 15 s timeout


def _state_path(hook: HookInput, config_home: str) -> str | None:
    if hook.session_id is None:
        return None
    # Beside Claude Code's transcript; for another CLI, under memdir's projects directory for the cwd.
    transcript = hook.transcript_path if hook.agent is CLAUDE_CODE else None
    return recall_state_path(hook.session_id, transcript_path=transcript, cwd=hook.cwd, config_home=config_home)


def _session_start(hook: HookInput, config: MemoryConfig, launcher: Launcher | None) -> HookResult:
    path = _state_path(hook, config.config_home)
    note = ""
    compacted = hook.source is not None and hook.source == hook.agent.compact_source
    if (hook.source == "clear" or compacted) and path is not None and reset_recall_state(path):
        note = "recall state reset"
    if hook.agent.loads_memory and not config.explicit_dir:
        notice = _truncation_notice(config)
        output = {"systemMessage": notice} if notice else None
        return HookResult(output=output, note=note or "Claude Code injects its own MEMORY.md")
    session = MemorySession(config)
    if hook.agent.loads_memory:
        context = session.user_context()
    else:
        # A CLI that knows nothing of the memory directory gets what Claude Code puts into its
        # system prompt and first message: the memory section (where memory lives, how to save)
        # and the index. After compaction (Codex) its context is gone, so it gets them again.
        context = "\n\n".join(part for part in (session.system_prompt_section(), session.user_context()) if part)
        if compacted:
            started = _background(hook, config, _launcher(config, launcher), what="session")
            note = "; ".join(part for part in (note, started.note) if part)
    return HookResult(output=_context(hook, context) if context else None, note=note)


def _log_settings_problems(config: MemoryConfig) -> None:
    """The settings mistakes memdir kept a default for, once a session, in ``logs/hooks.log``
    (a hook's stderr reaches nobody): a key a newer memdir wrote, a misspelt one, a refused value."""
    from memdir.integrations.hooks.launch import log_path
    from memdir.integrations.hooks.log import log_line

    for problem in config.settings_problems:
        log_line(log_path("hooks", config.config_home), "hook session-start", f"settings: {problem.message}")


def _launcher(config: MemoryConfig, launcher: Launcher | None) -> Launcher:
    if launcher is not None:
        return launcher
    from memdir.integrations.hooks.launch import launcher_from_env

    return launcher_from_env(config.environment)


def _truncation_notice(config: MemoryConfig) -> str:
    """One line for the person (a ``systemMessage``, which never reaches the model) when Claude
    Code will not load the whole ``MEMORY.md``: how many memories this session will not see."""
    from memdir.loaded_index import claude_code_load

    loaded = claude_code_load(config)
    if loaded.load is None or not loaded.load.truncated:
        return ""
    count = len(loaded.load.dropped)
    memories = f"{count} {'memory' if count == 1 else 'memories'}" if count else "no memory, but part of the index"
    return (
        f"memdir: MEMORY.md is cut at line {loaded.load.last_line} ({loaded.load.cause}), so Claude Code will not "
        f"see {memories} listed after it; 'memdir doctor' names them, 'memdir doctor --fix' compacts long lines"
    )


def _index_in_background(config: MemoryConfig, session: MemorySession, launcher: Launcher | None) -> str:
    """Start ``memdir reindex --background`` when recall left index work for later (a first build,
    a due full refresh, a large change to the stored postings); the prompt never waits for it."""
    index = session.index
    if index is None or not index.background_due:
        return ""
    from memdir.integrations.hooks.launch import launcher_from_env, log_path, reindex_argv

    launch = launcher or launcher_from_env(config.environment)
    memory_dir = config.memory_dir if config.explicit_dir else None
    launch(reindex_argv(project=config.project_root, memory_dir=memory_dir), log_path("reindex", config.config_home))
    return "; started reindex"


def _change_mark(session: MemorySession) -> tuple[int, int]:
    """What tells, after recall, that its scan found a memory changed: the derived index's
    generation (moved by a refresh that changed a row) and the scan cache's header reads."""
    index = session.index
    return (index.generation() if index is not None else -1, session.memory_dir.scan_cache.reads)


def _history_in_background(
    config: MemoryConfig, session: MemorySession, launcher: Launcher | None, mark: tuple[int, int]
) -> str:
    """Start ``memdir history sync`` when recall's scan found a file changed since memdir last
    looked (Claude Code's own writes, an editor's), so the history records it now, not at the next
    command; the hook itself never opens the history, and an unchanged directory starts nothing."""
    if not config.memdir.history or _change_mark(session) == mark:
        return ""
    return _start_history_sync(config, launcher)


def _start_history_sync(config: MemoryConfig, launcher: Launcher | None) -> str:
    if not config.memdir.history:
        return ""
    from memdir.integrations.hooks.launch import history_sync_argv, launcher_from_env, log_path

    launch = launcher or launcher_from_env(config.environment)
    memory_dir = config.memory_dir if config.explicit_dir else None
    argv = history_sync_argv(project=config.project_root, memory_dir=memory_dir)
    launch(argv, log_path("history", config.config_home))
    return "; started history sync"


def _check_after_answer(
    config: MemoryConfig, session: MemorySession, launcher: Launcher | None
) -> Callable[[], str] | None:
    """The check a small store's catch-up left for after the answer (:meth:`MemoryIndex.verify`:
    every memory file's stat against one stored signature, which notices an edit in place), or
    None. A file it finds changed is indexed for the next prompt and starts the history sync, as a
    change seen before the answer does. The index's connection is closed first, whatever is left:
    the hook is done with it (its process ends without tearing the interpreter down), and the
    check may run in a forked copy of this process, which must open its own."""
    index = session.index
    if index is None:
        return None
    index.close()
    if not index.verify_due:
        return None

    def check() -> str:
        try:
            changed = index.verify()
        finally:
            index.close()
        return _start_history_sync(config, launcher) if changed else ""

    return check


def _user_prompt_submit(hook: HookInput, config: MemoryConfig, launcher: Launcher | None = None) -> HookResult:
    if not hook.prompt:
        return HookResult(note="no prompt")
    path = _state_path(hook, config.config_home)
    # The prompt waits for this hook, which Claude Code kills at its timeout: a slow model
    # must give way to the offline ranking well before that.
    # A build or a long refresh of the derived index goes to the background, never into the prompt.
    session = MemorySession(config, hook_selector=True, model_timeout=HOOK_SELECTOR_TIMEOUT, defer_work=True)
    session.selected_kind()  # a wrong memdir.hookSelector is reported even when recall skips the prompt
    if path is not None:
        session.state = load_recall_state(path)
    mark = _change_mark(session)
    result = session.recall(hook.prompt)
    started = _index_in_background(config, session, launcher) + _history_in_background(config, session, launcher, mark)
    after = _check_after_answer(config, session, launcher)
    if result.skipped:
        return HookResult(note=f"recall skipped: {result.skipped}{started}", after=after)
    if not result.reminders:
        return HookResult(note=f"no relevant memories{started}", after=after)
    if path is not None:
        save_recall_state(path, session.state)
    # Tagged reminders only for a Claude Code release that passes tags through; other CLIs show
    # hook context as it is (Codex as a developer message, Gemini inside <hook_context>).
    tagged = hook.agent is CLAUDE_CODE and config.claude_code.rules.hook_context_reminders
    context = render_hook_context(result.memories, result.reminders, tagged=tagged)
    return HookResult(
        output=_context(hook, context),
        note=f"surfaced {', '.join(m.file for m in result.memories)}{started}",
        after=after,
    )


def _background(hook: HookInput, config: MemoryConfig, launcher: Launcher, *, what: str) -> HookResult:
    """Start extraction or a session-notes update for the turn the hook was called for.

    The transcript may not exist yet (Claude Code can run the Stop hook before it writes a
    session's first lines), so only its path is needed here: the command waits for the turn
    itself. Every start is logged, with what identifies the turn, in the command's log file.
    """
    if what == "extract" and not hook.agent.loads_memory:
        _record_turn_writes(hook, config, launcher)  # with or without a model: what the agent itself wrote
    if hook.agent_id is not None:
        return HookResult(note="inside a subagent")
    if hook.transcript_path is None:
        return HookResult(note="no transcript")
    if MemorySession(config).model_spec is None:
        return HookResult(note="no model configured (MEMDIR_MODEL or settings memdir.model)")
    if what == "extract" and config.memdir.agent_writes == "off":
        return HookResult(note="agents may not change memory (memdir.agentWrites is off)")
    from memdir.integrations.hooks.launch import extract_argv, log_path, session_update_argv
    from memdir.integrations.hooks.log import log_line
    from memdir.integrations.hooks.turn_wait import ANY_REPLY, reply_digest

    memory_dir = config.memory_dir if config.explicit_dir else None
    log_file = log_path(what, config.config_home)
    wait = hook.agent.waits_for_turn
    if what == "extract":
        # Stop names the turn's reply; SessionEnd only asks for whatever is not extracted yet.
        reply = None
        if hook.event == "stop" and wait:
            reply = reply_digest(hook.last_reply) if hook.last_reply else ANY_REPLY
        argv = extract_argv(
            hook.transcript_path,
            project=config.project_root,
            memory_dir=memory_dir,
            log_file=log_file,
            reply=reply,
            prompt_id=hook.prompt_id if hook.event == "stop" and wait else None,
            wait=wait,
        )
        turn = {None: "the transcript", ANY_REPLY: "a new reply"}.get(reply, f"reply {reply}")
    else:
        if hook.session_id is None:
            return HookResult(note="no session_id")
        argv = session_update_argv(
            hook.transcript_path,
            hook.session_id,
            project=config.project_root,
            memory_dir=memory_dir,
            log_file=log_file,
            wait=wait,
        )
        turn = "the transcript"
    try:
        handle = launcher(argv, log_file)
    except OSError as exc:
        log_line(log_file, f"hook {hook.event}", f"session {hook.session_id}: could not start {what}: {exc}")
        raise
    started = f"started {what}" + (f" (pid {handle})" if isinstance(handle, int) else "")
    if what == "extract" and hook.event == "stop" and hook.prompt_id and wait:
        turn += f" to prompt {hook.prompt_id}"
    how = f"waiting for {turn}" if wait else f"reading at once ({hook.agent.title} writes the turn before its hook)"
    event = hook.event if hook.agent is CLAUDE_CODE else f"{hook.agent.name} {hook.event}"
    log_line(log_file, f"hook {event}", f"session {hook.session_id}: {started}, {how}")
    note = started
    if what == "extract":
        note += _maybe_dream(hook, config, launcher)
    return HookResult(note=note, launched=handle)


def _record_turn_writes(hook: HookInput, config: MemoryConfig, launcher: Launcher) -> None:
    """Start ``memdir history sync --by <agent>``, which records what the turn changed in the
    memory directory as the agent's own (``codex``, ``gemini``): the model writes memory files
    with its own tools, told where by the memory section, and memdir's history would otherwise
    find them later as ``external``. Anything changed since memdir last looked counts, so an
    edit made by hand during the turn is attributed to the agent too. It runs in the background
    (Codex waits for its Stop hook) and is started before the extraction, whose own catch-up
    comes only before its first write, after a model call; its writes are
    ``extract:<agent>:<session>``."""
    if not config.memdir.history:
        return
    from memdir.integrations.hooks.launch import history_sync_argv, log_path

    memory_dir = config.memory_dir if config.explicit_dir else None
    argv = history_sync_argv(project=config.project_root, memory_dir=memory_dir, by=hook.agent.name)
    launcher(argv, log_path("history", config.config_home))


def _maybe_dream(hook: HookInput, config: MemoryConfig, launcher: Launcher) -> str:
    """Auto-dream after a turn, as Claude Code's stop hooks do: only when enabled and the gate is open.

    The gate's first check (hours since the last consolidation, one ``stat``) rejects almost every turn,
    so the hook stays fast; the dream process checks the gate again under the consolidation lock.
    """
    from memdir.integrations.hooks.launch import dream_argv, log_path
    from memdir.journal.gate import DreamGate, auto_dream_enabled

    enabled, _ = auto_dream_enabled(config)
    if not enabled:
        return ""
    decision = DreamGate(config).check(current_session=hook.session_id)
    if not decision.run:
        return ""
    memory_dir = config.memory_dir if config.explicit_dir else None
    argv = dream_argv(hook.session_id, project=config.project_root, memory_dir=memory_dir)
    launcher(argv, log_path("dream", config.config_home))
    return "; started dream"


def run_hook(
    event: str,
    data: object,
    *,
    agent: str = CLAUDE_CODE.name,
    project: str | None = None,
    memory_dir: str | None = None,
    environment: Environment | None = None,
    launcher: Launcher | None = None,
) -> HookResult:
    """Handle one hook event of ``agent`` (``claude-code``, ``codex``, ``gemini``). Raises on bad
    input; the CLI turns that into a one-line log.

    ``environment`` is the variables the hook runs with (``config.read_environment``, which reads
    this process's when it is not given): the project falls back to ``CLAUDE_PROJECT_DIR`` (which
    Gemini CLI sets too), and the configuration, the model and the launcher come from it. The
    Claude Code release is read from the transcript only when Claude Code ran the hook."""
    coding_agent = find_agent(agent)
    if event not in coding_agent.events:
        known = ", ".join(coding_agent.events)
        raise ConfigError(f"unknown {coding_agent.title} hook event {event!r}; use one of: {known}", rule="hook-event")
    if environment is None:
        environment = read_environment()
    hook = HookInput.parse(event, data, coding_agent)
    root = project or hook.cwd or environment.project_dir or None
    own = coding_agent is CLAUDE_CODE
    config = resolve_config(
        root,
        memory_dir=memory_dir,
        environment=environment,
        transcript=hook.transcript_path if own else None,
        reported_version=hook.version if own else None,
    )
    if config.settings_problems and event == "session-start":
        _log_settings_problems(config)
    if not config.enabled:
        return HookResult(note=f"auto memory is disabled ({config.disabled_reason})")
    if event == "session-start":
        return _session_start(hook, config, launcher)
    if event == "user-prompt-submit":
        return _user_prompt_submit(hook, config, launcher)
    launch = _launcher(config, launcher)
    if event == "pre-compact":
        return _background(hook, config, launch, what="session")
    if event == "stop" and hook.stop_hook_active:
        return HookResult(note="stop_hook_active")
    return _background(hook, config, launch, what="extract")
