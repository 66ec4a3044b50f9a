from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.server.storage import open_storage
from memdir.server.storage.base import Storage, TokenScope
from memdir.team.protocol import API_PATH

REPO = "acme/widgets"


def test_token_create_prints_a_token_that_the_database_accepts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'team.db'}"
    args = ["team", "token", "create", "--repo", REPO, "--repo", "docs/*", "--name", "ci runner", "--db", url]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert "shown only this once" in result.stderr and "'ci runner'" in result.stderr
    storage = open_storage(url)
    assert storage.verify_token(token) == TokenScope(("acme/widgets", "docs/*"), False, "ci runner")


def test_a_token_is_named_user_at_host_by_default(tmp_path: Path) -> None:
    import getpass
    import socket

    url = f"sqlite:///{tmp_path / 'team.db'}"
    result = CliRunner().invoke(cli, ["team", "token", "create", "--repo", REPO, "--db", url])
    scope = open_storage(url).verify_token(result.stdout.strip())
    assert scope is not None and scope.name == f"{getpass.getuser()}@{socket.gethostname()}"


def test_token_create_refuses_a_malformed_repo(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'team.db'}"
    result = CliRunner().invoke(cli, ["team", "token", "create", "--repo", "../x", "--db", url])
    assert result.exit_code == 2
    assert "OWNER/NAME" in result.output


def test_token_list_and_revoke_work_by_id_and_the_server_refuses_the_revoked_token(
    make_client: Callable[..., httpx.Client], storage: Storage, database_url: str
) -> None:
    client = make_client()
    runner = CliRunner()
    created = runner.invoke(cli, ["team", "token", "create", "--repo", REPO, "--db", database_url])
    assert created.exit_code == 0, created.output
    secret = created.stdout.strip()
    listed = runner.invoke(cli, ["team", "token", "list", "--json", "--db", database_url])
    assert listed.exit_code == 0, listed.output
    entries = json.loads(listed.stdout)
    assert secret not in listed.stdout
    assert [entry["repos"] for entry in entries] == [[REPO]]
    table = runner.invoke(cli, ["team", "token", "list", "--db", database_url])
    assert entries[0]["id"] in table.stdout and "write" in table.stdout
    headers = {"Authorization": f"Bearer {secret}"}
    assert client.get(API_PATH, params={"repo": REPO}, headers=headers).status_code == 404
    revoked = runner.invoke(cli, ["team", "token", "revoke", entries[0]["id"][:8], "--db", database_url])
    assert revoked.exit_code == 0, revoked.output
    assert f"revoked {entries[0]['id']}" in revoked.stdout
    assert client.get(API_PATH, params={"repo": REPO}, headers=headers).status_code == 401
    again = runner.invoke(cli, ["team", "token", "revoke", secret, "--db", database_url])
    assert again.exit_code == 1
    assert "no token matches" in again.output


def test_token_revoke_explains_a_malformed_id(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'team.db'}"
    result = CliRunner().invoke(cli, ["team", "token", "revoke", "xyz", "--db", url])
    assert result.exit_code == 1
    assert "neither a token nor a token id" in result.output
    assert "memdir team token list" in result.output


def test_the_database_defaults_to_the_claude_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("MEMDIR_TEAM_DB", raising=False)
    result = CliRunner().invoke(cli, ["team", "token", "create", "--repo", REPO])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "memdir-team.db").exists()


def test_without_a_config_dir_the_database_is_in_dot_claude_of_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("MEMDIR_TEAM_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    result = CliRunner().invoke(cli, ["team", "token", "create", "--repo", REPO])
    assert result.exit_code == 0, result.output
    assert (tmp_path / ".claude" / "memdir-team.db").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["team"],
        ["team", "serve"],
        ["team", "token"],
        ["team", "token", "create"],
        ["team", "token", "list"],
        ["team", "token", "revoke"],
        ["team", "rm"],
    ],
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


def test_serve_prints_its_database_its_dashboard_and_how_to_make_the_first_token(tmp_path: Path) -> None:
    from team_servers import ServerProcess

    server = ServerProcess(f"sqlite:///{tmp_path / 'team.db'}")
    try:
        said = "".join(server.lines)
    finally:
        server.stop()
    assert f"database:  sqlite:///{tmp_path / 'team.db'}" in said
    assert "dashboard: /dashboard/" in said
    assert "no token yet: create one with  memdir team token create --repo 'OWNER/*' --admin" in said
