from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.server.storage import Storage, open_storage
from memdir.server.storage.base import TokenScope
from memdir.team.protocol import API_PATH

REPO = "acme/widgets"


def test_token_create_prints_a_token_that_the_database_accepts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'team.db'}"
    result = CliRunner().invoke(cli, ["team", "token", "create", "--repo", REPO, "--repo", "docs/*", "--db", url])
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert "shown only this once" in result.stderr
    storage = open_storage(url)
    assert storage.verify_token(token) == TokenScope(("acme/widgets", "docs/*"), False)


def test_token_create_refuses_a_malformed_repo(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'team.db'}"
    result = CliRunner().invoke(cli, ["team", "token", "create", "--repo", "../x", "--db", url])
    assert result.exit_code == 2
    assert "OWNER/NAME" in result.output


def test_the_database_defaults_to_the_claude_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("MEMDIR_TEAM_DB", raising=False)
    result = CliRunner().invoke(cli, ["team", "token", "create", "--repo", REPO])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "memdir-team.db").exists()


@pytest.mark.parametrize(
    "command", [["team"], ["team", "serve"], ["team", "token"], ["team", "token", "create"], ["team", "rm"]]
)
def test_every_command_has_an_example(command: list[str]) -> None:
    result = CliRunner().invoke(cli, [*command, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output
    assert "memdir team" in result.output.split("Example:")[1]


def test_rm_deletes_a_key_through_the_server(make_client: Callable[..., httpx.Client], storage: Storage) -> None:
    client = make_client()
    writer = storage.create_token([REPO])
    admin = storage.create_token([REPO], admin=True)
    pushed = client.put(
        API_PATH,
        params={"repo": REPO},
        json={"entries": {"old.md": "x", "keep.md": "y"}},
        headers={"Authorization": f"Bearer {writer}"},
    )
    assert pushed.status_code == 200
    base = str(client.base_url)
    runner = CliRunner()
    refused = runner.invoke(cli, ["team", "rm", "old.md", "--repo", REPO, "--server", base, "--token", writer])
    assert refused.exit_code == 1
    assert "403" in refused.output
    done = runner.invoke(
        cli, ["team", "rm", "old.md", "--repo", REPO, "--server", base], env={"MEMDIR_TEAM_TOKEN": admin}
    )
    assert done.exit_code == 0, done.output
    assert "deleted old.md" in done.output
    state = storage.get_repo(REPO)
    assert state is not None
    assert state.entries == {"keep.md": "y"}
