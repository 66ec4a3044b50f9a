"""The push scheduler (no watchfiles, no sleeps) and the watcher driver against the real server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from team_helpers import REPO, TeamServer, write

from memdir.errors import SyncAuthError, SyncError
from memdir.team.client import TeamClient
from memdir.team.scheduler import PushScheduler, is_permanent_failure
from memdir.team.watcher import watch_team_memory

DELAY = 0.05
TIMEOUT = 30


class Recorder:
    """A push function whose outcome and blocking the test controls."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail_with: BaseException | None = None
        self.gate: threading.Event | None = None
        self.started = threading.Event()

    def __call__(self) -> str:
        self.calls += 1
        self.started.set()
        if self.gate is not None:
            assert self.gate.wait(TIMEOUT)
        if self.fail_with is not None:
            raise self.fail_with
        return "pushed"


def test_a_burst_of_changes_makes_one_push():
    push = Recorder()
    scheduler = PushScheduler(push, delay=DELAY)
    for _ in range(20):
        scheduler.notify_change()
    assert scheduler.wait_for(lambda s: s.attempts == 1 and not s.pending, TIMEOUT)
    assert push.calls == 1
    assert not scheduler.shutdown()


def test_a_change_during_a_push_re_arms_and_pushes_again_after_it():
    push = Recorder()
    push.gate = threading.Event()
    scheduler = PushScheduler(push, delay=DELAY)
    scheduler.notify_change()
    assert push.started.wait(TIMEOUT)
    scheduler.notify_change()
    push.gate.set()
    assert scheduler.wait_for(lambda s: s.attempts == 2, TIMEOUT)
    assert push.calls == 2
    scheduler.shutdown()


def test_a_permanent_failure_suppresses_pushes_until_a_deletion():
    push = Recorder()
    auth = SyncAuthError("bad token")
    push.fail_with = auth
    scheduler = PushScheduler(push, delay=DELAY)
    scheduler.notify_change()
    assert scheduler.wait_for(lambda s: s.suppressed, TIMEOUT)
    push.fail_with = None
    scheduler.notify_change()
    assert scheduler.wait_for(lambda s: not s.pending, TIMEOUT)
    assert push.calls == 1 and scheduler.suppressed
    scheduler.notify_change()
    assert not scheduler.shutdown(), "no flush while suppressed"

    scheduler = PushScheduler(push, delay=DELAY)
    push.fail_with = auth
    scheduler.notify_change()
    assert scheduler.wait_for(lambda s: s.suppressed, TIMEOUT)
    push.fail_with = None
    scheduler.notify_deletion()
    assert scheduler.wait_for(lambda s: s.attempts == 2 and not s.suppressed, TIMEOUT)
    scheduler.shutdown()


def test_transient_failures_do_not_suppress():
    for status, permanent in [(None, False), (500, False), (409, False), (429, False), (400, True), (413, True)]:
        error = SyncError("x")
        error.status = status
        assert is_permanent_failure(error) is permanent
    assert is_permanent_failure(SyncError("no repo", rule="sync-no-repo"))


def test_shutdown_awaits_the_push_in_flight_then_flushes_pending_changes():
    push = Recorder()
    scheduler = PushScheduler(push, delay=60)
    scheduler.notify_change()
    assert not push.started.is_set()
    flusher = threading.Thread(target=lambda: scheduler.shutdown(budget=TIMEOUT))
    flusher.start()
    flusher.join(TIMEOUT)
    assert push.calls == 1, "the pending change was flushed at once, not after the 60 s delay"


def test_the_watcher_pulls_then_pushes_changes_and_flushes_on_stop(team_server: TeamServer, tmp_path: Path):
    other = tmp_path / "other" / "team"
    write(other, "from-teammate.md", "hello\n")
    with TeamClient(team_server.endpoint()) as client:
        from memdir.team.push import push
        from memdir.team.state import SyncState

        push(client, SyncState(), str(other))

    team = tmp_path / "mine" / "team"
    stop = threading.Event()
    pushed: list[object] = []
    ready = threading.Event()
    done = threading.Condition()
    schedulers: list[PushScheduler] = []

    def on_push(result: object, error: BaseException | None) -> None:
        with done:
            pushed.append(error or result)
            done.notify_all()

    def on_ready(scheduler: PushScheduler) -> None:
        schedulers.append(scheduler)
        ready.set()

    def run() -> None:
        with TeamClient(team_server.endpoint()) as client:
            watch_team_memory(client, str(team), stop=stop, delay=DELAY, on_push=on_push, on_ready=on_ready)

    watcher = threading.Thread(target=run)
    watcher.start()
    assert ready.wait(TIMEOUT)
    assert (team / "from-teammate.md").read_text(encoding="utf-8") == "hello\n"

    write(team, "notes/new.md", "written while watching\n")

    def stored() -> dict[str, str]:
        state = team_server.storage.get_repo(REPO)
        return dict(state.entries) if state else {}

    with done:
        assert done.wait_for(lambda: "notes/new.md" in stored(), TIMEOUT)
    stop.set()
    watcher.join(TIMEOUT)
    assert not watcher.is_alive()
    assert stored() == {"from-teammate.md": "hello\n", "notes/new.md": "written while watching\n"}


def test_memdir_team_watch_flushes_pending_changes_on_sigterm(team_server: TeamServer, tmp_path: Path):
    memory = tmp_path / "memory"
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home"),
        "MEMDIR_TEAM_SERVER": team_server.url,
        "MEMDIR_TEAM_TOKEN": team_server.token,
        "PYTHONUNBUFFERED": "1",
    }
    argv = [sys.executable, "-c", "from memdir.cli import main; main()", "--memory-dir", str(memory)]
    process = subprocess.Popen(
        [*argv, "team", "watch", "--repo", REPO, "--debounce", "600"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stderr is not None
    lines: list[str] = []
    try:
        for line in process.stderr:
            lines.append(line)
            if line.startswith("watching "):
                write(memory / "team", "late.md", "saved just before shutdown\n")
            if "change(s) in team/" in line:
                process.send_signal(signal.SIGTERM)
                break
        _, rest = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=TIMEOUT)
    output = "".join(lines) + rest
    assert process.returncode == 0, output
    assert "pushed pending changes before stopping" in output
    state = team_server.storage.get_repo(REPO)
    assert state is not None and state.entries == {"late.md": "saved just before shutdown\n"}
