"""`memdir team pull|push|sync|status`, repository identity, and the team prompt variant."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from team_helpers import REPO, TeamServer, write

from memdir.cli import cli
from memdir.config import resolve_config
from memdir.memory_session import MemorySession
from memdir.team.repo import parse_remote_url, resolve_repo


@pytest.mark.parametrize(
    "url, repo",
    [
        ("https://github.com/acme/widgets.git", "acme/widgets"),
        ("https://gitlab.example.com/group/sub/widgets", "sub/widgets"),
        ("git@github.com:acme/widgets.git", "acme/widgets"),
        ("git@git.internal:acme/widgets", "acme/widgets"),
        ("ssh://git@host.example:2222/acme/widgets.git", "acme/widgets"),
        ("https://user:pw@bitbucket.org/acme/widgets.git/", "acme/widgets"),
        ("/srv/git/widgets.git", None),
        ("file:///srv/git/acme/widgets.git", "acme/widgets"),
        ("https://github.com/widgets", None),
        ("", None),
    ],
)
def test_the_repository_is_owner_and_name_from_any_hosts_remote(url: str, repo: str | None):
    assert parse_remote_url(url) == repo


@given(
    owner=st.from_regex(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,20}", fullmatch=True),
    name=st.from_regex(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,20}", fullmatch=True),
    host=st.sampled_from(["github.com", "gitlab.com", "git.example.org"]),
)
def test_every_url_form_names_the_same_repository(owner: str, name: str, host: str):
    expected = f"{owner}/{name.removesuffix('.git')}" if name.removesuffix(".git") not in ("", ".", "..") else None
    if owner in (".", ".."):
        expected = None
    for url in (f"https://{host}/{owner}/{name}", f"git@{host}:{owner}/{name}", f"ssh://git@{host}/{owner}/{name}"):
        assert parse_remote_url(url) == expected


def test_the_repository_comes_from_the_git_remote_or_is_a_clear_error(tmp_path: Path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(Exception, match="--repo OWNER/NAME"):
        resolve_repo(None, str(tmp_path))
    subprocess.run(
        ["git", "-C", str(tmp_path), "remote", "add", "origin", "git@gitea.local:acme/widgets.git"], check=True
    )
    assert resolve_repo(None, str(tmp_path)) == "acme/widgets"
    assert resolve_repo("other/repo", str(tmp_path)) == "other/repo"


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    for name in ("MEMDIR_TEAM_SERVER", "TEAM_MEMORY_SYNC_URL", "MEMDIR_TEAM_TOKEN"):
        monkeypatch.delenv(name, raising=False)

    def invoke(memory: Path, *args: str, env: dict[str, str] | None = None):
        return CliRunner().invoke(cli, ["--memory-dir", str(memory), "team", *args], env=env, catch_exceptions=False)

    return invoke


def test_cli_push_json_then_pull_with_env_vars(run, team_server: TeamServer, tmp_path: Path):
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for n in range(3):
        write(mine / "team", f"n{n}.md", f"{n}\n")
    write(mine / "team", "leak.md", "key AKIAIOSFODNN7EXAMPLE\n")
    options = ["--server", team_server.url, "--token", team_server.token, "--repo", REPO]
    pushed = run(mine, "push", *options, "--json")
    assert pushed.exit_code == 0, pushed.output
    assert json.loads(pushed.stdout) == {
        "uploaded": 3,
        "batches": 1,
        "unchanged": 0,
        "deleted": [],
        "not_pushed": [],
        "held_deletions": [],
        "skipped_secrets": [{"file": "leak.md", "labels": ["AWS Access Token"]}],
        "skipped": [],
        "capped": 0,
        "problems": [],
    }
    assert "leak.md" in pushed.stderr and "AKIA" not in pushed.stderr

    for server_var in ("MEMDIR_TEAM_SERVER", "TEAM_MEMORY_SYNC_URL"):
        env = {server_var: team_server.url, "MEMDIR_TEAM_TOKEN": team_server.token}
        pulled = run(theirs, "pull", "--repo", REPO, env=env)
        assert pulled.exit_code == 0, pulled.output
    assert sorted(p.name for p in (theirs / "team").iterdir()) == ["n0.md", "n1.md", "n2.md"]

    write(theirs / "team", "new.md", "new\n")
    status = run(theirs, "status", *options, "--json")
    assert json.loads(status.stdout)["would_push"] == ["new.md"]
    synced = run(theirs, "sync", *options)
    assert synced.exit_code == 0 and "push: 1 file to the server" in synced.stdout
    text_status = run(theirs, "status", *options)
    assert "would push:  0 files" in text_status.stdout and REPO in text_status.stdout


def test_cli_errors_name_the_fix(run, team_server: TeamServer, tmp_path: Path):
    no_server = run(tmp_path / "m", "push", "--repo", REPO)
    assert no_server.exit_code == 1 and "MEMDIR_TEAM_SERVER" in no_server.stderr
    no_token = run(tmp_path / "m", "push", "--server", team_server.url, "--repo", REPO)
    assert no_token.exit_code == 1 and "MEMDIR_TEAM_TOKEN" in no_token.stderr
    wrong = run(tmp_path / "m", "pull", "--server", team_server.url, "--token", "mdt_wrong", "--repo", REPO)
    assert wrong.exit_code == 1 and "401" in wrong.stderr and "memdir team token create" in wrong.stderr


def test_a_configured_team_server_switches_the_prompt_to_the_team_variant(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("TEAM_MEMORY_SYNC_URL", raising=False)
    monkeypatch.delenv("MEMDIR_TEAM_SERVER", raising=False)
    memory = tmp_path / "memory"
    solo = MemorySession(resolve_config(str(tmp_path), memory_dir=str(memory))).system_prompt_section()
    assert solo is not None and str(memory / "team") not in solo and solo.startswith("# auto memory")

    monkeypatch.setenv("MEMDIR_TEAM_SERVER", "http://127.0.0.1:9")
    config = resolve_config(str(tmp_path), memory_dir=str(memory))
    assert config.team_enabled
    section = MemorySession(config).system_prompt_section()
    assert section is not None and config.team_dir in section and section.startswith("# Memory")

    shown = CliRunner().invoke(cli, ["--memory-dir", str(memory), "prompt"], catch_exceptions=False)
    assert shown.exit_code == 0 and config.team_dir in shown.stdout
