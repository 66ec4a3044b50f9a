"""`memdir team status` draws a table of changed keys on a terminal and stays line per key when piped."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from team_helpers import REPO, TeamServer, write


def team_status(memory: Path, server: TeamServer, *, terminal: bool) -> str:
    argv = [sys.executable, "-m", "memdir", "--memory-dir", str(memory), "team", "status"]
    argv += ["--server", server.url, "--token", server.token, "--repo", REPO]
    env = {**os.environ, "COLUMNS": "100"}
    if not terminal:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=True).stdout
    main, side = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(main, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=side, stderr=subprocess.PIPE)
    os.close(side)
    process.communicate(timeout=120)
    reader.join(timeout=30)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


def test_team_status_is_a_table_on_a_terminal_and_plain_when_piped(team_server: TeamServer, tmp_path: Path):
    memory = tmp_path / "memory"
    write(memory / "team", "deploy.md", "tuesdays only\n")
    write(memory / "team", "oncall.md", "alice this week\n")
    shown = team_status(memory, team_server, terminal=True)
    assert "how it stands" in shown and "━" in shown and "deploy.md" in shown and "oncall.md" in shown
    piped = team_status(memory, team_server, terminal=False)
    assert "how it stands" not in piped and "━" not in piped
    assert "  deploy.md\n" in piped and "  oncall.md\n" in piped
