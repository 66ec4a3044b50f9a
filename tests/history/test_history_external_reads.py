"""An outside edit (Claude Code, an editor) is recorded when memdir reads, not only when it writes:
``memdir list``, a page of the web view, the prompt hook (through a background ``memdir history
sync``), and, as it happens, the watcher of a running ``memdir ui``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from history_place import Place

from memdir.integrations.hooks.events import run_hook


def _seed(place: Place) -> Path:
    place.run(
        "add", "--type", "project", "--name", "Billing review", "--description", "Billing reviews run on Fridays",
        "--body", "The billing review checklist lives in the wiki.",
    )  # fmt: skip
    return place.memory / "project_billing_review.md"


def _edit(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
    stamp = time.time() + 1  # a new mtime even on a coarse clock
    os.utime(path, (stamp, stamp))


def _recorded(place: Place, file: str) -> list[tuple[str, str]]:
    """The file's changes, oldest first, read from the database as they are (no catch-up)."""
    history = place.history()
    try:
        return [(row.change, row.by) for row in reversed(history.versions(file))]
    finally:
        history.close()


def test_memdir_list_records_an_outside_edit_of_what_it_lists(place: Place) -> None:
    memory = _seed(place)
    _edit(memory, "Edited in an editor.\n")
    place.run("list")
    assert _recorded(place, memory.name) == [("create", "cli"), ("edit", "external")]


def test_the_prompt_hook_starts_a_history_sync_only_when_its_scan_found_a_change(place: Place) -> None:
    memory = _seed(place)
    launched: list[list[str]] = []

    def hook() -> str:
        data = {"session_id": "s1", "cwd": str(place.project), "prompt": "what is on the billing review checklist"}
        result = run_hook(
            "user-prompt-submit",
            data,
            memory_dir=str(place.memory),
            project=str(place.project),
            launcher=lambda argv, log: launched.append(list(argv)),
        )
        # An edit in place changes no directory: the check after the answer is what finds it.
        return result.note + (result.after() if result.after is not None else "")

    hook()  # the first look may find the store new to its caches
    launched.clear()
    assert "history sync" not in hook() and launched == []
    _edit(memory, "Claude Code added this line.\n")
    assert "started history sync" in hook()
    assert [argv[-2:] for argv in launched] == [["history", "sync"]]
    assert _recorded(place, memory.name) == [("create", "cli")]  # the hook itself records nothing
    assert place.run("history", "sync").stdout == "recorded 1 outside change\n"  # type: ignore[attr-defined]
    assert _recorded(place, memory.name) == [("create", "cli"), ("edit", "external")]


def test_a_running_web_view_records_each_outside_edit_as_it_happens(place: Place) -> None:
    memory = _seed(place)
    command = [sys.executable, "-m", "memdir", "--memory-dir", str(place.memory), "ui", "--no-browser"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip()
            with httpx.Client(timeout=30) as client:
                assert client.get(url, follow_redirects=True).status_code == 200  # serving: the watch is on
            for n in (1, 2):  # two edits, no memdir command or page between them: two versions
                _edit(memory, f"Edit {n} from outside.\n")
                assert _wait_for(place, memory.name, 1 + n), _recorded(place, memory.name)
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert _recorded(place, memory.name) == [("create", "cli"), ("edit", "external"), ("edit", "external")]


def _wait_for(place: Place, file: str, count: int, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(_recorded(place, file)) >= count:
            return True
        time.sleep(0.1)
    return False


def test_a_running_mcp_server_records_an_outside_edit_without_a_tool_call(place: Place) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    memory = _seed(place)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir.cli", "--memory-dir", str(place.memory), "mcp"],
        env={**place.env, "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(place.project),
    )

    async def main() -> list[tuple[str, str]]:
        with anyio.fail_after(60):
            async with Client(params) as client:
                await client.call_tool("list", {})  # the server is up, and so is its watch
                await anyio.sleep(0.5)
                _edit(memory, "Claude Code added this line.\n")
                while len(_recorded(place, memory.name)) < 2:
                    await anyio.sleep(0.1)
                return _recorded(place, memory.name)

    assert anyio.run(main) == [("create", "cli"), ("edit", "external")]


def test_a_web_view_starting_records_what_was_edited_while_nothing_watched(place: Place) -> None:
    memory = _seed(place)
    _edit(memory, "Edited while no memdir process ran.\n")
    command = [sys.executable, "-m", "memdir", "--memory-dir", str(place.memory), "ui", "--no-browser"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            process.stdout.readline()  # serving; no page is asked for: the watch's first look records it
            assert _wait_for(place, memory.name, 2), _recorded(place, memory.name)
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert _recorded(place, memory.name) == [("create", "cli"), ("edit", "external")]


def test_a_watch_is_healthy_only_while_it_runs_over_the_directory_it_started_on(place: Place) -> None:
    from memdir.store.history_records import history_path
    from memdir.store.history_watch import watch_external

    _seed(place)
    watch = watch_external(str(place.memory), history_path(str(place.memory), str(place.home)))
    assert watch is not None
    try:
        assert watch.healthy()  # reads in this process may skip their catch-up
        place.memory.rename(place.root / "moved")
        place.memory.mkdir()
        assert not watch.healthy()  # a new directory under the old name: nothing watches it
    finally:
        watch.stop()
    assert not watch.healthy()
