from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdir.config import resolve_config
from memdir.errors import ConfigError
from memdir.settings import MANAGED_DIR_ENV, Settings, Source, default_managed_dir, load_settings


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "config": tmp_path / "config",
        "root": tmp_path / "project",
        "managed": tmp_path / "managed",
        "flag": tmp_path / "flag.json",
    }
    paths["root"].mkdir()
    return paths


def _env(layout: dict[str, Path]) -> dict[str, str]:
    return {"CLAUDE_CONFIG_DIR": str(layout["config"]), "HOME": str(layout["config"].parent)}


def test_load_settings_reads_every_source_from_its_file(layout: dict[str, Path]) -> None:
    _write(layout["config"] / "settings.json", {"k": "user"})
    _write(layout["root"] / ".claude" / "settings.json", {"k": "project"})
    _write(layout["root"] / ".claude" / "settings.local.json", {"k": "local"})
    _write(layout["managed"] / "managed-settings.json", {"k": "policy"})
    _write(layout["flag"], {"k": "flag"})
    settings = load_settings(
        str(layout["root"]),
        config_home=str(layout["config"]),
        flag_settings=str(layout["flag"]),
        managed_dir=str(layout["managed"]),
    )
    assert {source: values["k"] for source, values in settings.values.items()} == {
        Source.USER: "user",
        Source.PROJECT: "project",
        Source.LOCAL: "local",
        Source.POLICY: "policy",
        Source.FLAG: "flag",
    }


def test_missing_files_are_simply_absent(layout: dict[str, Path]) -> None:
    settings = load_settings(str(layout["root"]), config_home=str(layout["config"]), managed_dir=str(layout["managed"]))
    assert settings.values == {}
    assert settings.first_trusted("autoMemoryDirectory") is None
    assert settings.merged("autoMemoryEnabled") is None


def test_managed_dir_comes_from_env_override(layout: dict[str, Path]) -> None:
    _write(layout["managed"] / "managed-settings.json", {"autoMemoryEnabled": False})
    env = {**_env(layout), MANAGED_DIR_ENV: str(layout["managed"])}
    assert default_managed_dir(env[MANAGED_DIR_ENV]) == str(layout["managed"])
    config = resolve_config(str(layout["root"]), env=env)
    assert config.settings.values[Source.POLICY] == {"autoMemoryEnabled": False}
    assert not config.enabled


def test_default_managed_dir_is_the_platform_directory() -> None:
    assert default_managed_dir("") == default_managed_dir(None)
    assert default_managed_dir() in (
        "/etc/claude-code",
        "/Library/Application Support/ClaudeCode",
        "C:\\Program Files\\ClaudeCode",
    )


def test_broken_json_raises_config_error_naming_file_line_and_column(layout: dict[str, Path]) -> None:
    bad = layout["root"] / ".claude" / "settings.local.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{\n  "autoMemoryEnabled": tru\n}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings(str(layout["root"]), config_home=str(layout["config"]), managed_dir=str(layout["managed"]))
    message = str(info.value)
    assert str(bad) in message
    assert "line 2, column 24" in message
    assert "fix" in message
    assert info.value.path == str(bad)


def test_settings_that_are_not_an_object_raise_config_error(layout: dict[str, Path]) -> None:
    _write(layout["config"] / "settings.json", ["not", "an", "object"])
    with pytest.raises(ConfigError, match="JSON object"):
        load_settings(None, config_home=str(layout["config"]), managed_dir=str(layout["managed"]))


def test_memdir_section_that_is_not_an_object_raises_config_error(layout: dict[str, Path]) -> None:
    _write(layout["config"] / "settings.json", {"memdir": 3})
    with pytest.raises(ConfigError, match='"memdir" must be a JSON object'):
        load_settings(None, config_home=str(layout["config"]), managed_dir=str(layout["managed"]))


def test_non_utf8_settings_raise_config_error(layout: dict[str, Path]) -> None:
    path = layout["config"] / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ConfigError, match="UTF-8"):
        load_settings(None, config_home=str(layout["config"]), managed_dir=str(layout["managed"]))


def test_empty_settings_file_counts_as_an_empty_object(layout: dict[str, Path]) -> None:
    path = layout["config"] / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("\n", encoding="utf-8")
    settings = load_settings(None, config_home=str(layout["config"]), managed_dir=str(layout["managed"]))
    assert settings.values == {Source.USER: {}}


def test_missing_flag_settings_file_is_an_error(layout: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(
            None,
            config_home=str(layout["config"]),
            flag_settings=str(layout["flag"]),
            managed_dir=str(layout["managed"]),
        )


def test_disabled_sources_are_not_read(layout: dict[str, Path]) -> None:
    _write(layout["config"] / "settings.json", {"k": "user"})
    _write(layout["root"] / ".claude" / "settings.json", "broken but never read")
    settings = load_settings(
        str(layout["root"]),
        config_home=str(layout["config"]),
        managed_dir=str(layout["managed"]),
        disabled_sources=[Source.PROJECT, Source.USER],
    )
    assert settings.values == {}


def test_policy_settings_cannot_be_disabled(layout: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="cannot be disabled"):
        load_settings(None, config_home=str(layout["config"]), disabled_sources=[Source.POLICY])


def test_first_trusted_follows_policy_flag_local_user_and_ignores_project() -> None:
    everything = {source: {"k": source.value} for source in Source}
    assert Settings(everything).first_trusted("k") == "policySettings"
    del everything[Source.POLICY]
    assert Settings(everything).first_trusted("k") == "flagSettings"
    del everything[Source.FLAG]
    assert Settings(everything).first_trusted("k") == "localSettings"
    del everything[Source.LOCAL]
    assert Settings(everything).first_trusted("k") == "userSettings"
    del everything[Source.USER]
    assert Settings(everything).first_trusted("k") is None
    assert Settings(everything).merged("k") == "projectSettings"


def test_merged_precedence_puts_project_between_local_and_user() -> None:
    settings = Settings({Source.USER: {"k": "user"}, Source.PROJECT: {"k": "project"}})
    assert settings.merged("k") == "project"
    assert settings.origin("k") is Source.PROJECT
    assert settings.origin("k", trusted_only=True) is Source.USER
    settings = Settings({Source.LOCAL: {"k": "local"}, Source.PROJECT: {"k": "project"}})
    assert settings.merged("k") == "local"


def test_null_counts_as_undefined() -> None:
    settings = Settings({Source.POLICY: {"k": None}, Source.USER: {"k": "user"}})
    assert settings.first_trusted("k") == "user"
    assert settings.merged("k") == "user"


def test_merged_objects_merge_by_key_and_lists_concatenate() -> None:
    settings = Settings(
        {
            Source.USER: {"o": {"a": 1, "b": 1}, "l": ["x", "y"]},
            Source.POLICY: {"o": {"b": 2}, "l": ["y", "z"]},
        }
    )
    assert settings.merged("o") == {"a": 1, "b": 2}
    assert settings.merged("l") == ["x", "y", "z"]


def test_memdir_keys_live_under_a_memdir_object_with_merged_precedence() -> None:
    settings = Settings(
        {
            Source.USER: {"memdir": {"scanCap": 500, "selector": "lexical"}},
            Source.PROJECT: {"memdir": {"scanCap": 300}},
        }
    )
    assert settings.memdir("scanCap", 200) == 300
    assert settings.memdir("selector", "llm") == "lexical"
    assert settings.memdir("missing", 7) == 7
    assert Settings.empty().memdir("scanCap", 200) == 200
