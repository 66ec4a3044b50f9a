"""Who wrote a team memory is the token's name, whatever a push body says, and a line merge a pull
makes is recorded in the local history as the teammate whose version it took in.

A real server on 127.0.0.1 (uvicorn in a thread, SQLite), the real CLI and history.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

from memdir.cli import cli
from memdir.server.storage import open_storage
from memdir.server.storage.base import Storage
from memdir.team.protocol import API_PATH
from team_servers import serve_in_thread

REPO = "acme/widgets"
LINES = [f"Step {n} of the deploy." for n in range(1, 9)]


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    with closing(open_storage(f"sqlite:///{tmp_path / 'team.db'}")) as opened:
        yield opened


@pytest.fixture
def url(storage: Storage) -> Iterator[str]:
    with serve_in_thread(storage, None) as base:
        yield base


def test_the_author_of_a_push_is_its_tokens_name_never_one_the_body_claims(storage: Storage, url: str) -> None:
    mallory = storage.create_token([REPO], name="mallory")
    body = {"entries": {"deploy.md": "x\n"}, "author": "alice", "by": "alice", "entryAuthors": {"deploy.md": "alice"}}
    pushed = httpx.put(url + API_PATH, params={"repo": REPO}, json=body, headers={"Authorization": f"Bearer {mallory}"})
    assert pushed.status_code == 200, pushed.text
    assert pushed.json()["author"] == "mallory"
    pulled = httpx.get(url + API_PATH, params={"repo": REPO}, headers={"Authorization": f"Bearer {mallory}"})
    assert pulled.json()["content"]["entryAuthors"] == {"deploy.md": "mallory"}
    state = storage.get_repo(REPO)
    assert state is not None and state.authors == {"deploy.md": "mallory"}


def test_a_line_merge_a_pull_makes_is_recorded_as_the_teammate(storage: Storage, url: str, tmp_path: Path) -> None:
    alice, bob = storage.create_token([REPO], name="alice"), storage.create_token([REPO], name="bob")
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "home")}

    def team(memory: Path, token: str, *args: str) -> Result:
        argv = ["--memory-dir", str(memory), "team", *args, "--server", url, "--token", token, "--repo", REPO]
        done = CliRunner(env=env).invoke(cli, argv, catch_exceptions=False)
        assert done.exit_code == 0, done.output
        return done

    theirs, mine = tmp_path / "alice", tmp_path / "bob"
    (theirs / "team").mkdir(parents=True)
    (theirs / "team" / "deploy.md").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    team(theirs, alice, "push")
    team(mine, bob, "pull")
    alice_edit = [*LINES[:-1], "Step 8 of the deploy, by alice."]
    (theirs / "team" / "deploy.md").write_text("\n".join(alice_edit) + "\n", encoding="utf-8")
    team(theirs, alice, "push")
    bob_edit = ["Step 1 of the deploy, by bob.", *LINES[1:]]
    (mine / "team" / "deploy.md").write_text("\n".join(bob_edit) + "\n", encoding="utf-8")

    synced = json.loads(team(mine, bob, "sync", "--json").output)
    assert "deploy.md" in synced["merged"]
    merged = (mine / "team" / "deploy.md").read_text(encoding="utf-8")
    assert "by bob" in merged and "by alice" in merged
    history = CliRunner(env=env).invoke(cli, ["--memory-dir", str(mine), "history", "team/deploy.md", "--json"])
    newest = json.loads(history.stdout)[0]
    assert newest["by"] == "team:alice", newest  # the merge took alice's version in
