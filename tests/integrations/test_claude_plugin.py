"""The Claude Code plugin in the repository: the same hooks as ``memdir hooks install``, the same MCP
server as ``claude mcp add memdir -- memdir mcp``, and a launcher that never blocks a session.

The real CLI installs, uses and uninstalls the plugin in ``tests/claude_code/test_claude_code_plugin.py``;
these checks hold the files themselves to memdir's own definitions, without the CLI.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memdir.integrations.hooks.events import HOOK_EVENTS
from memdir.integrations.hooks.install import install_hooks

REPOSITORY = Path(__file__).resolve().parents[2]
PLUGIN = REPOSITORY / "plugin"
LAUNCHER = PLUGIN / "scripts" / "run-memdir"
PLUGIN_COMMAND = 'sh "${CLAUDE_PLUGIN_ROOT}/scripts/run-memdir"'
MEMDIR = Path(sys.executable).with_name("memdir")


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_marketplace_offers_the_plugin_folder_under_the_plugins_own_name() -> None:
    market = read(REPOSITORY / ".claude-plugin" / "marketplace.json")
    manifest = read(PLUGIN / ".claude-plugin" / "plugin.json")
    [entry] = market["plugins"]
    assert (market["name"], entry["name"], manifest["name"]) == ("memdir", "memdir", "memdir")
    assert (REPOSITORY / entry["source"]).resolve() == PLUGIN


def test_the_plugins_version_is_memdirs() -> None:
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert read(PLUGIN / ".claude-plugin" / "plugin.json")["version"] == project["version"]


def test_the_plugins_hooks_are_the_ones_memdir_hooks_install_writes(tmp_path: Path) -> None:
    """Same events, timeouts and async flag; only the command differs: the launcher, not a path."""
    installed = read(Path(install_hooks("user", config_home=str(tmp_path)).path))["hooks"]
    for groups in installed.values():
        for group in groups:
            for hook in group["hooks"]:
                verb = shlex.split(hook["command"])[-1]
                hook["command"] = f"{PLUGIN_COMMAND} hook {verb}"
    assert read(PLUGIN / "hooks" / "hooks.json")["hooks"] == installed
    assert set(installed) == set(HOOK_EVENTS.values())


def test_the_plugins_mcp_server_is_memdir_mcp_through_the_launcher() -> None:
    servers = read(PLUGIN / ".mcp.json")["mcpServers"]
    assert servers == {"memdir": {"command": "sh", "args": ["${CLAUDE_PLUGIN_ROOT}/scripts/run-memdir", "mcp"]}}


def launch(tmp_path: Path, *args: str, with_memdir: bool, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The launcher as Claude Code runs it, with memdir on PATH or nowhere to be found."""
    path = ["/usr/bin", "/bin"]
    if with_memdir:
        found = tmp_path / "bin"
        found.mkdir(exist_ok=True)
        if not (found / "memdir").exists():
            (found / "memdir").symlink_to(MEMDIR)
        path.insert(0, str(found))
    env = {"PATH": os.pathsep.join(path), "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    return subprocess.run(
        ["sh", str(LAUNCHER), *args], input=stdin, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("verb", [v for v in HOOK_EVENTS if v != "session-start"])
def test_without_memdir_a_hook_says_how_to_install_it_in_one_line_and_lets_the_session_go_on(
    tmp_path: Path, verb: str
) -> None:
    done = launch(tmp_path, "hook", verb, with_memdir=False, stdin='{"session_id": "s1", "prompt": "hi"}')
    assert done.returncode == 0 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert "memdir command was not found" in line and "pipx install 'memdir[mcp,anthropic]'" in line


def test_without_memdir_the_session_start_hook_tells_the_person_not_the_model(tmp_path: Path) -> None:
    done = launch(tmp_path, "hook", "session-start", with_memdir=False, stdin='{"session_id": "s1"}')
    assert done.returncode == 0 and done.stderr == ""
    [line] = done.stdout.splitlines()
    answer = json.loads(line)
    assert list(answer) == ["systemMessage"] and "pipx install" in answer["systemMessage"]


def test_without_memdir_the_mcp_server_fails_with_the_same_line(tmp_path: Path) -> None:
    done = launch(tmp_path, "mcp", with_memdir=False)
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "pipx install" in done.stderr


def test_with_memdir_the_launcher_runs_it_with_the_arguments_it_was_given(tmp_path: Path) -> None:
    memories = tmp_path / "memories"
    done = launch(tmp_path, "--memory-dir", str(memories), "list", "--json", with_memdir=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_with_memdir_only_in_the_users_local_bin_the_launcher_finds_it(tmp_path: Path) -> None:
    local = tmp_path / "home" / ".local" / "bin"
    local.mkdir(parents=True)
    (local / "memdir").symlink_to(MEMDIR)
    done = launch(tmp_path, "--memory-dir", str(tmp_path / "memories"), "list", "--json", with_memdir=False)
    assert done.returncode == 0 and json.loads(done.stdout) == [], done.stderr


def test_memdir_hooks_install_says_when_the_plugin_already_runs_the_same_hooks(tmp_path: Path, monkeypatch) -> None:
    from click.testing import CliRunner

    from memdir.cli import cli

    config = tmp_path / "claude"
    config.mkdir()
    settings = config / "settings.json"
    settings.write_text(json.dumps({"enabledPlugins": {"memdir@memdir": True}}), encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    done = CliRunner().invoke(cli, ["--project", str(tmp_path), "hooks", "install"])
    assert done.exit_code == 0, done.output
    assert f"the memdir plugin for Claude Code is enabled in {settings}" in done.stderr
    assert "claude plugin uninstall memdir@memdir" in done.stderr
    settings.write_text(json.dumps({"enabledPlugins": {"memdir@memdir": False}}), encoding="utf-8")
    done = CliRunner().invoke(cli, ["--project", str(tmp_path), "hooks", "install"])
    assert done.exit_code == 0 and "plugin" not in done.stderr
