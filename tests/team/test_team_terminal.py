"""`memdir team status` draws a table of changed keys on a terminal and stays line per key when piped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from team_helpers import REPO, TeamServer, write

from terminal_helpers import on_terminal


def team_status(memory: Path, server: TeamServer, *, terminal: bool) -> str:
    args = ["--memory-dir", str(memory), "team", "status"]
    args += ["--server", server.url, "--token", server.token, "--repo", REPO]
    env = {**os.environ, "COLUMNS": "100"}
    if terminal:
        return on_terminal(args, env, "stdout")[0]
    argv = [sys.executable, "-m", "memdir", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=True).stdout


def test_team_status_is_a_table_on_a_terminal_and_plain_when_piped(team_server: TeamServer, tmp_path: Path):
    memory = tmp_path / "memory"
    write(memory / "team", "deploy.md", "tuesdays only\n")
    write(memory / "team", "oncall.md", "alice this week\n")
    shown = team_status(memory, team_server, terminal=True)
    assert "how it stands" in shown and "━" in shown and "deploy.md" in shown and "oncall.md" in shown
    piped = team_status(memory, team_server, terminal=False)
    assert "how it stands" not in piped and "━" not in piped
    assert "  deploy.md\n" in piped and "  oncall.md\n" in piped
