"""Every file memdir creates is readable by its owner only: 0600 files in 0700 directories.

Run under the common umask 022 (which leaves other people's read bits on whatever a program
creates without saying otherwise): memories, indexes, daily logs, the derived index and caches,
history, the team sync base, the hook logs and the team server's SQLite database with its
``-wal`` and ``-shm`` files.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir.server.storage import open_storage
from team_servers import serve_in_thread


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _loose(root: Path) -> list[str]:
    found = []
    for directory, folders, files in os.walk(root):
        for name in folders:
            mode = stat.S_IMODE(os.lstat(os.path.join(directory, name)).st_mode)
            if mode & 0o077:
                found.append(f"{os.path.join(directory, name)} {mode:o}")
        for name in files:
            mode = stat.S_IMODE(os.lstat(os.path.join(directory, name)).st_mode)
            if mode & 0o077:
                found.append(f"{os.path.join(directory, name)} {mode:o}")
    return found


def test_every_file_memdir_creates_is_0600_in_a_0700_directory(umask_022: None, tmp_path: Path):
    home, project, server_dir = tmp_path / "home", tmp_path / "project", tmp_path / "server" / "data"
    project.mkdir()
    storage = open_storage(f"sqlite:///{server_dir / 'team.db'}")
    token = storage.create_token(["acme/widgets"])
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(home),
        "MEMDIR_TEAM_TOKEN": token,
        "MEMDIR_DAILY_LOG": "",
    }

    def memdir(*args: str) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "memdir", "--project", str(project), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr

    try:
        with serve_in_thread(storage) as url:
            env["MEMDIR_TEAM_SERVER"] = url
            memdir("add", "--type", "feedback", "--name", "Real DB", "--description", "tests hit a real db")
            memdir("add", "--type", "project", "--name", "Deploys", "--description", "on Tuesdays",
                   "--file", "team/project_deploys.md")  # fmt: skip
            memdir("log", "talked about deploys")
            memdir("recall", "how do we test?", "--json")
            memdir("reindex")
            memdir("list")
            memdir("history")
            memdir("team", "sync", "--repo", "acme/widgets")
            live = sorted(p.name for p in server_dir.iterdir())
            assert "team.db-wal" in live, live
            loose = _loose(home) + _loose(tmp_path / "server")
    finally:
        storage.close()
    assert loose == []
