import json
import os
import shlex

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.errors import ConfigError
from memdir.integrations.hooks.install import install_hooks, is_memdir_command, settings_path, uninstall_hooks

OTHERS = {
    "model": "opus",
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    },
}


@pytest.fixture
def home(tmp_path, monkeypatch):
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return claude


def read(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_scopes_map_to_claude_codes_settings_files(tmp_path, home):
    project = str(tmp_path)
    assert settings_path("user", config_home=str(home)) == str(home / "settings.json")
    assert settings_path("project", project=project, config_home=str(home)) == os.path.join(
        project, ".claude", "settings.json"
    )
    assert settings_path("local", project=project, config_home=str(home)) == os.path.join(
        project, ".claude", "settings.local.json"
    )


def test_install_merges_memdirs_hooks_and_keeps_everything_else(home):
    home.mkdir()
    (home / "settings.json").write_text(json.dumps(OTHERS), encoding="utf-8")
    result = install_hooks("user", config_home=str(home))
    data = read(result.path)
    assert data["model"] == "opus"
    assert data["hooks"]["PreToolUse"] == OTHERS["hooks"]["PreToolUse"]
    assert data["hooks"]["Stop"][0] == OTHERS["hooks"]["Stop"][0]
    stop = data["hooks"]["Stop"][1]["hooks"][0]
    assert stop["async"] is True
    assert shlex.split(stop["command"])[-2:] == ["hook", "stop"]
    assert set(data["hooks"]) == {"Stop", "PreToolUse", "SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"}
    recall = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    assert recall["type"] == "command" and is_memdir_command(recall["command"])


def test_installing_twice_replaces_memdirs_entries(home):
    install_hooks("user", config_home=str(home))
    first = read(settings_path("user", config_home=str(home)))
    second_result = install_hooks("user", config_home=str(home))
    assert second_result.removed == 5
    assert read(settings_path("user", config_home=str(home))) == first


def test_uninstall_removes_only_memdirs_entries_and_the_containers_it_emptied(home):
    home.mkdir()
    (home / "settings.json").write_text(json.dumps(OTHERS), encoding="utf-8")
    install_hooks("user", config_home=str(home))
    result = uninstall_hooks("user", config_home=str(home))
    assert result.removed == 5
    assert read(settings_path("user", config_home=str(home))) == OTHERS
    again = uninstall_hooks("user", config_home=str(home))
    assert again.removed == 0 and again.written is False


def test_uninstall_on_a_file_with_only_memdir_hooks_leaves_no_hooks_key(tmp_path, home):
    project = str(tmp_path / "repo")
    os.makedirs(project)
    install_hooks("local", project=project, config_home=str(home))
    uninstall_hooks("local", project=project, config_home=str(home))
    assert read(settings_path("local", project=project, config_home=str(home))) == {}


def test_broken_settings_json_is_refused_and_left_untouched(home):
    home.mkdir()
    broken = '{"hooks": {"Stop": [}'
    (home / "settings.json").write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        install_hooks("user", config_home=str(home))
    assert info.value.rule == "settings-json" and "not valid JSON" in info.value.message
    assert (home / "settings.json").read_text(encoding="utf-8") == broken
    result = CliRunner().invoke(cli, ["hooks", "install"])
    assert result.exit_code == 1
    assert "not valid JSON" in result.stderr
    assert (home / "settings.json").read_text(encoding="utf-8") == broken


def test_memdir_commands_are_recognised_and_others_are_not():
    assert is_memdir_command("memdir hook stop")
    assert is_memdir_command("/opt/venv/bin/memdir --memory-dir '/a b' hook user-prompt-submit")
    assert is_memdir_command("/usr/bin/python3 -m memdir.cli hook pre-compact")
    assert not is_memdir_command("other-tool hook stop")
    assert not is_memdir_command("memdir recall 'x'")
    assert not is_memdir_command("echo memdir hook stop-it")
    assert not is_memdir_command(None)


def test_the_cli_installs_with_a_global_memory_dir_in_the_commands(tmp_path, home):
    project = tmp_path / "repo"
    project.mkdir()
    mem = str(tmp_path / "shared mem")
    result = CliRunner().invoke(
        cli, ["--project", str(project), "--memory-dir", mem, "hooks", "install", "--scope", "project"]
    )
    assert result.exit_code == 0, result.output
    data = read(project / ".claude" / "settings.json")
    words = shlex.split(data["hooks"]["SessionStart"][0]["hooks"][0]["command"])
    assert words[-4:] == ["--memory-dir", mem, "hook", "session-start"]
    removed = CliRunner().invoke(cli, ["--project", str(project), "hooks", "uninstall", "--scope", "project"])
    assert "removed 5 memdir hook entries" in removed.output
