"""``memdir hook <event>`` without click: the process Claude Code starts for every hook event.

Claude Code waits for the UserPromptSubmit hook before it sends each prompt, and starts a fresh
process per event, so importing click (several times the cost of a bare interpreter) was paid on
every prompt. :func:`hook_call` recognises exactly the command lines ``memdir hooks install``
writes (global ``--project``/``--memory-dir`` options, then ``hook [--agent NAME] <event>``); anything else,
``--help`` included, goes through click unchanged. Both paths run :func:`run_hook_command`.

Claude Code also waits for the hook's process to exit, not only for its answer. Work a hook
leaves for after its answer (``HookResult.after``: the prompt hook's check of every memory file's
``stat``) runs, in the console script, in a forked copy of the process that has detached from
Claude Code (a new session, none of the hook's pipes), while the hook itself exits at once.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import NamedTuple

__all__ = ["HookCall", "hook_call", "run_hook_command"]

_GLOBAL_OPTIONS = ("--project", "--memory-dir")


class HookCall(NamedTuple):
    """One ``memdir [--project P] [--memory-dir D] hook [--agent NAME] <event>`` command line, parsed."""

    event: str
    project: str | None
    memory_dir: str | None
    agent: str = "claude-code"


def hook_call(argv: Sequence[str]) -> HookCall | None:
    """The hook call ``argv`` (without the program name) asks for, or None to let click parse it.

    None for anything unusual (a repeated option, an empty or file path, an unknown event, extra
    words) so click gives its usual answer and error messages.
    """
    from memdir.integrations.hooks.coding_agents import AGENTS  # only once argv looked like a hook call

    options: dict[str, str] = {}
    rest = list(argv)
    while rest and rest[0] != "hook":
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if name not in _GLOBAL_OPTIONS or name in options:
            return None
        if not equals:
            if not rest:
                return None
            value = rest.pop(0)
        if not value or os.path.isfile(value):
            return None
        options[name] = value
    agent = "claude-code"
    if len(rest) == 4 and rest[1] == "--agent":
        agent = rest[2]
        del rest[1:3]
    elif len(rest) == 3 and rest[1].startswith("--agent="):
        agent = rest[1].partition("=")[2]
        del rest[1]
    if len(rest) != 2 or agent not in AGENTS or rest[1] not in AGENTS[agent].events:
        return None
    return HookCall(rest[1], options.get("--project"), options.get("--memory-dir"), agent)


def run_hook_command(
    event: str, *, project: str | None, memory_dir: str | None, agent: str = "claude-code", detach: bool = False
) -> None:
    """Read the hook's JSON on stdin, print the answer (if any) as one JSON line on stdout, then
    run what the hook left for after its answer: in a detached fork when ``detach`` (the console
    script, which exits as soon as this returns), else here.

    Fails open: any error becomes one ``memdir hook <event>: ...`` line on stderr, nothing on
    stdout, and the caller still exits 0, so Claude Code carries on without memdir.
    """
    from memdir.integrations.hooks.events import run_hook

    try:
        raw = sys.stdin.read()
        data = json.loads(raw) if raw.strip() else {}
        result = run_hook(event, data, agent=agent, project=project, memory_dir=memory_dir)
    except Exception as exc:  # noqa: BLE001 - hooks fail open: log one line, never break the session
        _fail(event, exc)
        return
    if result.output is not None:
        sys.stdout.write(json.dumps(result.output, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    if result.after is None or (detach and _ran_in_a_fork(result.after)):
        return
    try:
        result.after()
    except Exception as exc:  # noqa: BLE001 - as above
        _fail(event, exc)


def _fail(event: str, exc: Exception) -> None:
    """One line on stderr, and the same in ``<configHome>/memdir/logs/hooks.log``: Claude Code shows a
    hook's stderr to nobody by default, so the log is where a person finds why recall stopped."""
    from memdir.config import read_environment
    from memdir.integrations.hooks.launch import log_path
    from memdir.integrations.hooks.log import log_line
    from memdir.paths import config_home

    line = " ".join(f"memdir hook {event}: {type(exc).__name__}: {exc}".split())
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    log_line(
        log_path("hooks", config_home(read_environment())), f"hook {event}", f"did nothing: {type(exc).__name__}: {exc}"
    )


def _ran_in_a_fork(work: Callable[[], object]) -> bool:
    """Run ``work`` in a forked child and return at once: True (False when there is no ``fork`` on
    this system or it failed; the caller then does the work itself). The child leaves Claude
    Code's session and process group and lets go of the hook's pipes, so neither the answer's
    reader nor a kill aimed at the hook waits for it or reaches it, and ends with ``os._exit``:
    it never returns into the caller, whose exit handlers belong to the parent."""
    fork: Callable[[], int] | None = getattr(os, "fork", None)
    if fork is None:
        return False
    try:
        pid = fork()
    except OSError:
        return False
    if pid:
        return True
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        work()
    finally:
        os._exit(0)
