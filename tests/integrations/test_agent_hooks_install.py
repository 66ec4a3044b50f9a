"""``memdir hooks install --agent codex|gemini``: each CLI's file and format, memdir's entries only."""

import json
import os
import sys

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.config import read_environment
from memdir.errors import ConfigError
from memdir.integrations.hooks.agent_setup import codex_trust_problems, register_mcp, unregister_mcp
from memdir.integrations.hooks.install import install_hooks, is_memdir_command, settings_path, uninstall_hooks

OTHERS = {
    "general": {"vimMode": True},
    "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5000}]}]},
    "mcpServers": {"github": {"command": "gh-mcp"}},
}


@pytest.fixture
def env(tmp_path):
    # no `codex` on PATH: the Codex steps that need it say how to do them by hand
    return {
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "PATH": str(tmp_path / "bin"),
    }


def read(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_each_agent_and_scope_has_its_own_file(tmp_path, env):
    environment = read_environment({**env, "CODEX_HOME": str(tmp_path / "codex")})
    home, project = env["HOME"], str(tmp_path / "repo")
    where = {
        (agent, scope): settings_path(scope, config_home="/c", project=project, agent=agent, environment=environment)
        for agent in ("codex", "gemini")
        for scope in ("user", "project")
    }
    assert where == {
        ("codex", "user"): str(tmp_path / "codex" / "hooks.json"),
        ("codex", "project"): os.path.join(project, ".codex", "hooks.json"),
        ("gemini", "user"): os.path.join(home, ".gemini", "settings.json"),
        ("gemini", "project"): os.path.join(project, ".gemini", "settings.json"),
    }
    with pytest.raises(ConfigError, match="Codex CLI has no local settings file"):
        settings_path("local", config_home="/c", agent="codex", environment=environment)


def test_gemini_entries_use_its_event_names_and_milliseconds_and_keep_everything_else(tmp_path, env):
    environment = read_environment(env)
    path = settings_path("user", config_home="/c", agent="gemini", environment=environment)
    os.makedirs(os.path.dirname(path))
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(OTHERS, handle)
    first = install_hooks("user", config_home="/c", agent="gemini", environment=environment)
    assert first.events == ("SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd")
    data = read(path)
    [recall] = data["hooks"]["BeforeAgent"][0]["hooks"]
    assert recall["command"].endswith("hook --agent gemini user-prompt-submit") and recall["timeout"] == 15000
    assert recall["name"] == "memdir user-prompt-submit" and is_memdir_command(recall["command"])
    assert data["hooks"]["AfterAgent"][0] == OTHERS["hooks"]["AfterAgent"][0]
    again = install_hooks("user", config_home="/c", agent="gemini", environment=environment)
    assert again.removed == 4 and read(path) == data
    removed = uninstall_hooks("user", config_home="/c", agent="gemini", environment=environment)
    assert removed.removed == 4 and read(path) == OTHERS


def test_codex_entries_give_session_end_the_three_seconds_codex_allows(tmp_path, env):
    environment = read_environment(env)
    result = install_hooks("user", config_home="/c", agent="codex", environment=environment)
    hooks = read(result.path)["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
    assert [g["hooks"][0]["timeout"] for g in (hooks[e][0] for e in hooks)] == [15, 15, 30, 3]
    assert all("async" not in g["hooks"][0] for e in hooks for g in hooks[e])


def test_installing_for_codex_without_codex_on_path_says_how_to_trust_the_hooks(tmp_path, env):
    runner = CliRunner()
    done = runner.invoke(cli, ["--project", str(tmp_path), "hooks", "install", "--agent", "codex"], env=env)
    assert done.exit_code == 0, done.output
    assert "Codex runs only hooks it trusts, and `codex` is not on PATH: start Codex in this project, type /hooks" in (
        done.output
    )
    environment = read_environment(env)
    [(path, problem, checked)] = codex_trust_problems(project=str(tmp_path), config_home="/c", environment=environment)
    assert path.endswith(os.path.join(".codex", "hooks.json")) and "not on PATH" in problem and not checked


def test_mcp_is_registered_and_removed_where_each_cli_reads_its_servers(tmp_path, env):
    environment = read_environment(env)
    project = str(tmp_path / "repo")
    os.makedirs(project)
    for agent, scope, path in [
        ("gemini", "project", os.path.join(project, ".gemini", "settings.json")),
        ("claude-code", "project", os.path.join(project, ".mcp.json")),
        ("claude-code", "user", str(tmp_path / "claude" / ".claude.json")),
    ]:
        line = register_mcp(agent, scope, project=project, config_home="/c", environment=environment)
        assert line == f"registered the MCP server memdir in {path}"
        server = read(path)["mcpServers"]["memdir"]
        assert server["args"][-1] == "mcp" and (server.get("type") == "stdio") == (agent == "claude-code")
        assert unregister_mcp(agent, scope, project=project, config_home="/c", environment=environment).startswith(
            "removed"
        )
        assert "mcpServers" not in read(path)
    codex = register_mcp("codex", "user", project=project, config_home="/c", environment=environment)
    assert codex.startswith("`codex` is not on PATH: register the MCP server with `codex mcp add memdir -- ")


def test_doctor_notes_memdirs_codex_hooks_whose_trust_it_cannot_check(tmp_path, env):
    runner = CliRunner()
    project = ["--project", str(tmp_path)]
    assert runner.invoke(cli, [*project, "hooks", "install", "--agent", "codex"], env=env).exit_code == 0
    done = runner.invoke(cli, [*project, "doctor"], env=env)
    assert done.exit_code == 0 and "note: " in done.output and "[codex-hooks-untrusted]" in done.output, done.output


def test_doctor_fails_when_codex_says_memdirs_hooks_are_not_trusted(tmp_path, env):
    """A stand-in ``codex`` that answers the app server's two questions as an untrusting Codex does."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "codex"
    fake.write_text(
        "#!" + sys.executable + "\n"
        "import json, os, sys\n"
        "path = os.path.join(os.environ['HOME'], '.codex', 'hooks.json')\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if 'id' not in msg: continue\n"
        "    result = {}\n"
        "    if msg['method'] == 'hooks/list':\n"
        "        hooks = [{'key': f'{path}:stop:0:0', 'command': json.load(open(path))['hooks']['Stop'][0]['hooks'][0]"
        "['command'], 'sourcePath': path, 'currentHash': 'sha256:x', 'trustStatus': 'untrusted'}]\n"
        "        result = {'data': [{'cwd': msg['params']['cwds'][0], 'hooks': hooks}]}\n"
        "    print(json.dumps({'id': msg['id'], 'result': result}), flush=True)\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    runner = CliRunner()
    project = ["--project", str(tmp_path)]
    installed = runner.invoke(cli, [*project, "hooks", "install", "--agent", "codex"], env=env)
    assert "Codex trusts the 1 memdir hooks (1 newly trusted)" in installed.output, installed.output
    done = runner.invoke(cli, [*project, "doctor"], env=env)
    assert done.exit_code == 1 and "[codex-hooks-untrusted] Codex skips 1 memdir hooks here (stop)" in done.output


def test_a_codex_that_cannot_remove_the_server_is_reported_not_called_removed(tmp_path, env):
    fake = tmp_path / "bin" / "codex"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Error: no MCP server named memdir' >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    said = unregister_mcp("codex", "user", project=None, config_home="/c", environment=read_environment(env))
    assert said == "`codex mcp remove memdir` failed (Error: no MCP server named memdir): remove it by hand"
