"""Starting memdir's background agents from a hook without making Claude Code wait.

Extraction and session notes call a model and can take a minute; a hook must answer in
milliseconds. So the hook starts ``memdir extract`` / ``memdir session update`` as a fully
detached process (its own session, no stdin/stdout, stderr appended to a log under
``<configHome>/memdir/logs/``) and returns. The child is bounded by its own timeouts, so nothing
is left waiting on it, and the CLI is the only interface shared with those agents.

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

from memdir.store.files import ensure_dir

if TYPE_CHECKING:
    from memdir.environment import Environment

__all__ = [
    "RECORD_ENV_VAR",
    "Launcher",
    "dream_argv",
    "extract_argv",
    "launcher_from_env",
    "log_path",
    "memdir_argv",
    "record_launch",
    "session_update_argv",
    "spawn_detached",
]

RECORD_ENV_VAR = "MEMDIR_HOOK_LAUNCH_RECORD"

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


def extract_argv(transcript_path: str, *, project: str, memory_dir: str | None = None) -> list[str]:
    return [*memdir_argv(), *_globals(project, memory_dir), "extract", "--transcript", transcript_path, "--json"]


def session_update_argv(
    transcript_path: str, session_id: str, *, project: str, memory_dir: str | None = None
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
    ]


def dream_argv(session_id: str | None, *, project: str, memory_dir: str | None = None) -> list[str]:
    session = ["--session", session_id] if session_id else []
    return [*memdir_argv(), *_globals(project, memory_dir), "dream", *session, "--json"]


def log_path(name: str, config_home: str) -> str:
    return os.path.join(config_home, "memdir", "logs", f"{name}.log")


def spawn_detached(argv: Sequence[str], log_file: str) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own session so it outlives the hook and never holds its pipes."""
    ensure_dir(os.path.dirname(log_file))
    with open(log_file, "ab") as log:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )


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
