"""Helpers of the framework adapter tests."""

from __future__ import annotations

import os

from memdir.config import resolve_config
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory


def session_over(memory_dir, env, *, model=None):
    """A session over ``memory_dir`` that recalls offline (the prompt hook's ranking) and extracts with ``model``."""
    return MemorySession(resolve_config(memory_dir=memory_dir, env=env), model=model, selector_kind="lexical")


def read_memory(path):
    """A memory file as Claude Code reads it."""
    with open(path, encoding="utf-8") as handle:
        return Memory.parse(handle.read())


def index_lines(memory_dir):
    with open(os.path.join(memory_dir, "MEMORY.md"), encoding="utf-8") as handle:
        return [line for line in handle.read().splitlines() if line.strip()]


def text_of(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def changed_by(memory_dir, env, file):
    """Who the memory history says made the latest change to ``file`` (``memdir history FILE --json``)."""
    import json
    import subprocess
    import sys

    argv = [sys.executable, "-m", "memdir.cli", "--memory-dir", memory_dir, "history", file, "--json"]
    full = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path), **env}
    done = subprocess.run(argv, capture_output=True, text=True, env=full, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)[0]["by"]
