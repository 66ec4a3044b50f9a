"""A random sequence of 1,000 changes through every write path, with kill -9s, loses no content.

The ledger is every text any file of the directory ever held between two operations (read back
after each one) and every text a killed process managed to put in place; at the end each of them
must be either a live file or a version in the history. Operations: saves and deletes through the
Python API, the MCP toolbox, the memory tool's commands, the agents' file tools, a team pull,
restores and undos, edits and deletions by "someone else" (plain file writes, which memdir sees at
its next run), and child processes killed with SIGKILL in the middle of a recorded write.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

from history_place import Place, digest, pull_into_team
from test_history_crash import CHILD

from memdir.background.file_tools import MemoryFileTools
from memdir.config import open_memory_dir, resolve_config
from memdir.errors import MemdirError
from memdir.integrations.memory_tool.commands import MemoryCommands
from memdir.model.memory import Memory
from memdir.store.provenance import acting_as
from memdir.tools.toolbox import MemoryToolbox

OPERATIONS = 1000
CRASHES = 8
NAMES = [f"user_topic_{n}.md" for n in range(8)] + ["team/shared_a.md", "team/shared_b.md"]


def memory_text(rng: random.Random, name: str) -> str:
    words = " ".join(rng.choice(["alpha", "beta", "gamma", "delta", "payments", "deploy"]) for _ in range(12))
    return f"---\nname: {name}\ndescription: {words[:40]}\ntype: user\n---\n\n{words} {rng.random()}\n"


def snapshot(root: str) -> set[str]:
    seen = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if not name.startswith(".") and ".tmp." not in name:
                with open(os.path.join(folder, name), "rb") as handle:
                    seen.add(digest(handle.read()))
    return seen


def test_every_content_ever_written_is_live_or_restorable_after_1000_random_operations(place: Place) -> None:
    rng = random.Random(24)
    config = resolve_config(str(place.project), memory_dir=str(place.memory))
    directory = open_memory_dir(config)
    directory.ensure()
    (place.memory / "team").mkdir()
    toolbox = MemoryToolbox(directory)
    commands = MemoryCommands(directory)
    tools = {tool.spec.name: tool for tool in MemoryFileTools(directory).tools()}
    root = str(place.memory)
    ledger: set[str] = set()
    crash_at = set(rng.sample(range(50, OPERATIONS), CRASHES))
    last_external = False

    def live_topics() -> list[str]:
        return [name for name in NAMES if (place.memory / name).exists()]

    for step in range(OPERATIONS):
        name = rng.choice(NAMES)
        text = memory_text(rng, name.rsplit("/", 1)[-1][:-3])
        kind = rng.choice(["api", "mcp", "tool", "agent", "team", "external", "restore", "undo", "delete"])
        if step in crash_at:
            kind = "crash"
        if kind == "external" and last_external:
            kind = "api"
        last_external = kind == "external"
        try:
            if kind == "crash":
                body = f"crash {step} {rng.random()}"
                env = {**os.environ, **place.env}
                args = [sys.executable, "-c", CHILD, root, str(place.home), rng.choice(["before", "written"]), body]
                done = subprocess.run(args, env=env, capture_output=True, timeout=60)
                assert done.returncode == -signal.SIGKILL, done.stderr
            elif kind == "external":
                target = place.memory / name
                if target.exists() and rng.random() < 0.3:
                    target.unlink()
                else:
                    target.write_text(text, encoding="utf-8")
            else:
                with acting_as({"agent": "extract:fuzz", "mcp": "mcp:fuzz"}.get(kind, kind)):
                    if kind == "api":
                        memory = Memory.parse(text)
                        directory.save(memory, file=name, force=True)
                    elif kind == "mcp":
                        toolbox.remember(type="user", name=name, description="d", body=text, file=name, force=True)
                    elif kind == "tool":
                        commands.create(f"/memories/{name}", text) if rng.random() < 0.7 else commands.rename(
                            f"/memories/{name}", f"/memories/{rng.choice(NAMES)}"
                        )
                    elif kind == "agent":
                        tool = rng.choice(["Write", "Write", "Delete"])
                        arguments = {"file_path": os.path.join(root, name)}
                        tools[tool]({**arguments, "content": text} if tool == "Write" else arguments)
                    elif kind == "team":
                        key = rng.choice(["shared_a.md", "shared_b.md"])
                        pull_into_team(place.memory / "team", key, text)
                    elif kind == "delete":
                        if live_topics():
                            directory.delete(rng.choice(live_topics()))
                    elif kind == "restore":
                        history = directory.history
                        assert history is not None
                        rows = [row for row in history.versions(limit=200) if row.hash is not None]
                        if rows:
                            row = rng.choice(rows)
                            history.restore(row.file, row.version)
                    elif kind == "undo":
                        history = directory.history
                        assert history is not None
                        runs = [run for run in history.runs(limit=30) if run.by != "external"]
                        if runs:
                            history.undo(rng.choice(runs).id, force=rng.random() < 0.5)
        except (MemdirError, FileNotFoundError, IsADirectoryError):
            pass  # a refused operation (a missing file, an existing name) changes nothing
        ledger |= snapshot(root)

    history = directory.history
    assert history is not None
    history.sync()
    kept = snapshot(root) | {str(row[0]) for row in history.db._connect().execute("SELECT hash FROM blobs")}
    lost = ledger - kept
    assert lost == set(), f"{len(lost)} of {len(ledger)} contents are neither live nor in the history"
    assert len(ledger) > OPERATIONS // 2
