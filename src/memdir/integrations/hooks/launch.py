"""Starting memdir's background agents from a hook without making Claude Code wait.

Extraction and session notes call a model and can take a minute; a hook must answer in
milliseconds. So the hook starts ``memdir extract`` / ``memdir session update`` as a fully
detached process (its own session, no stdin/stdout, stderr appended to a log under
``<configHome>/memdir/logs/``) and returns. The child is bounded by its own timeouts, so nothing
is left waiting on it, and the CLI is the only interface shared with those agents.

Detached means more than a new session: Claude Code ends a hook it gives up on (a timeout, an
interrupt, the session closing) by killing the hook's process tree, which 2.1.88 finds by parent
PID. So the command is started by a short-lived ``/bin/sh`` that puts it in the background and
exits (a double fork): by the time the hook returns, the command's parent is init, no longer the
hook, and no kill aimed at the hook or its process group reaches it.

The commands get what the hook input says about the turn (``--reply`` with the digest of the
last reply, ``--prompt-id``), wait up to :data:`TURN_WAIT_SECONDS` for the transcript to hold it
(:mod:`memdir.integrations.hooks.turn_wait`), and ``--log`` the outcome in the same log file.

A :data:`Launcher` receives the argv and the log path. The default one spawns; setting
``MEMDIR_HOOK_LAUNCH_RECORD=<file>`` makes it append the argv as a JSON line to that file instead,
which lets end-to-end tests of the ``memdir hook`` command see exactly what would run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memdir.environment import VARIABLES
from memdir.store.files import create_private_file, ensure_dir

if TYPE_CHECKING:
    from memdir.environment import Environment

__all__ = [
    "RECORD_ENV_VAR",
    "TURN_WAIT_SECONDS",
    "Launcher",
    "dream_argv",
    "extract_argv",
    "history_sync_argv",
    "launcher_from_env",
    "log_path",
    "memdir_argv",
    "record_launch",
    "session_update_argv",
    "spawn_detached",
]

RECORD_ENV_VAR = VARIABLES["hook_launch_record"]

# (argv, log file) -> a handle (a Popen, or whatever a test launcher returns)
Launcher = Callable[[Sequence[str], str], object]


def memdir_argv() -> list[str]:
    """The memdir CLI under the interpreter running this hook, independent of PATH."""
    return [sys.executable, "-m", "memdir.cli"]


def _globals(project: str, memory_dir: str | None) -> list[str]:
    argv = ["--project", project]
    if memory_dir is not None:
        argv += ["--memory-dir", memory_dir]
    return argv


TURN_WAIT_SECONDS = 10.0


def _turn(log_file: str | None, reply: str | None, prompt_id: str | None, wait: bool = True) -> list[str]:
    """The options that make a command wait for the hook's turn (unless the CLI has it on disk
    before its hook runs: ``wait`` false) and log what it did."""
    if log_file is None:
        return []
    if not wait:
        return ["--log", log_file]
    argv = ["--wait", f"{TURN_WAIT_SECONDS:g}", "--log", log_file]
    if reply is not None:
        argv += ["--reply", reply]
    if prompt_id is not None:
        argv += ["--prompt-id", prompt_id]
    return argv


def extract_argv(
    transcript_path: str,
    *,
    project: str,
    memory_dir: str | None = None,
    log_file: str | None = None,
    reply: str | None = None,
    prompt_id: str | None = None,
    wait: bool = True,
) -> list[str]:
    """``memdir extract``; with ``log_file`` it logs and, unless not ``wait``, waits for the turn
    (``reply``, ``prompt_id``)."""
    return [
        *memdir_argv(),
        *_globals(project, memory_dir),
        "extract",
        "--transcript",
        transcript_path,
        "--json",
        *_turn(log_file, reply, prompt_id, wait),
    ]


def session_update_argv(
    transcript_path: str,
    session_id: str,
    *,
    project: str,
    memory_dir: str | None = None,
    log_file: str | None = None,
    wait: bool = True,
) -> list[str]:
    return [
        *memdir_argv(),
        *_globals(project, memory_dir),
        "session",
        "update",
        "--transcript",
        transcript_path,
        "--session-id",
        session_id,
        *_turn(log_file, None, None, wait),
    ]


def dream_argv(session_id: str | None, *, project: str, memory_dir: str | None = None) -> list[str]:
    session = ["--session", session_id] if session_id else []
    return [*memdir_argv(), *_globals(project, memory_dir), "dream", *session, "--json"]


def reindex_argv(*, project: str, memory_dir: str | None = None) -> list[str]:
    """The background build or refresh of the derived index, which the prompt hook never waits for."""
    return [*memdir_argv(), *_globals(project, memory_dir), "reindex", "--background"]


def history_sync_argv(*, project: str, memory_dir: str | None = None, by: str | None = None) -> list[str]:
    """The background recording of outside changes the prompt hook noticed (it never opens the
    history itself), or, with ``by``, of what a Codex or Gemini turn changed, as that agent's."""
    return [*memdir_argv(), *_globals(project, memory_dir), "history", "sync", *(["--by", by] if by else [])]


def log_path(name: str, config_home: str) -> str:
    return os.path.join(config_home, "memdir", "logs", f"{name}.log")


# $1 is the log file; the rest is the command, started in the background. Its PID is printed.
_TRAMPOLINE = 'log=$1; shift; "$@" </dev/null >/dev/null 2>>"$log" & echo $!'
_TRAMPOLINE_TIMEOUT = 10.0


def spawn_detached(argv: Sequence[str], log_file: str) -> int:
    """Start ``argv`` so it outlives the hook: a new session, then a double fork; returns its PID.

    It holds none of the hook's pipes (stdin and stdout are ``/dev/null``, stderr is appended to
    ``log_file``). Raises ``OSError`` when the command could not be started.
    """
    ensure_dir(os.path.dirname(log_file))
    create_private_file(log_file)  # the shell's >> would make it 0644
    if not os.path.exists("/bin/sh"):  # not a POSIX system: a plain child, as detached as it gets there
        with open(log_file, "ab") as log:
            child = subprocess.Popen(
                list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, close_fds=True
            )
        return child.pid
    shell = subprocess.run(
        ["/bin/sh", "-c", _TRAMPOLINE, "memdir-launch", log_file, *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        start_new_session=True,
        close_fds=True,
        timeout=_TRAMPOLINE_TIMEOUT,
        check=False,
    )
    printed = shell.stdout.decode("ascii", "replace").strip()
    if shell.returncode != 0 or not printed.isdigit():
        detail = shell.stderr.decode("utf-8", "replace").strip() or f"exit status {shell.returncode}"
        raise OSError(f"could not start {argv[0] if argv else 'a command'} in the background: {detail}")
    return int(printed)


def record_launch(record_file: str) -> Launcher:
    """A launcher that writes what it would run instead of running it."""

    def launch(argv: Sequence[str], log_file: str) -> str:
        ensure_dir(os.path.dirname(os.path.abspath(record_file)))
        with open(record_file, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"argv": list(argv), "log": log_file}) + "\n")
        return record_file

    return launch


def launcher_from_env(environment: Environment) -> Launcher:
    """The recording launcher when ``MEMDIR_HOOK_LAUNCH_RECORD`` names a file, else the spawning one."""
    record = environment.hook_launch_record
    return record_launch(record) if record else spawn_detached
