"""The one table of memdir.* settings: checked once into a typed record, every mistake said one way."""

import json
import re
import typing
from pathlib import Path

import pytest

from memdir.config import MemoryConfig, resolve_config
from memdir.errors import ConfigError
from memdir.settings import Settings, Source
from memdir.settings_table import (
    AUTO_DREAM_ENABLED,
    CLAUDE_KEYS,
    CLAUDE_MD_EXCLUDES,
    DEFAULT_SETTINGS,
    KEYS,
    SESSION_MEMORY_KEYS,
    SETTINGS_DEFAULTS,
    MemdirSettings,
    SessionMemorySettings,
    claude_setting,
    resolve_memdir_settings,
)

README = Path(__file__).resolve().parents[1] / "README.md"


def _resolve(tmp_path: Path, memdir: object, **others: object) -> MemoryConfig:
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    settings = json.dumps({"memdir": memdir, **others})
    (project / ".claude" / "settings.json").write_text(settings, encoding="utf-8")
    env = {"CLAUDE_CONFIG_DIR": str(home), "HOME": str(tmp_path), "MEMDIR_MANAGED_DIR": str(tmp_path / "managed")}
    return resolve_config(str(project), env=env)


def _refusal(tmp_path: Path, memdir: object) -> ConfigError:
    """The one problem a settings mistake is: resolving goes on, and the configuration lists it."""
    [problem] = _resolve(tmp_path, memdir).settings_problems
    return problem


def _refusal_of(tmp_path: Path, others: dict[str, object]) -> ConfigError:
    with pytest.raises(ConfigError) as raised:
        _resolve(tmp_path, {}, **others)
    return raised.value


def test_every_key_of_the_table_is_one_attribute_of_the_record():
    assert sorted(key.attr for key in KEYS) == sorted(MemdirSettings._fields)
    assert sorted(key.attr for key in SESSION_MEMORY_KEYS) == sorted(SessionMemorySettings._fields)
    assert len({key.name for key in KEYS}) == len(KEYS)
    for key in KEYS:
        assert key.attr == re.sub(r"(?<!^)([A-Z])", r"_\1", key.name).lower()


def test_every_default_as_written_in_a_settings_file_passes_its_own_check():
    for key in KEYS:
        assert key.check.accepts(SETTINGS_DEFAULTS[key.name]), key.name
    for key in SESSION_MEMORY_KEYS:
        assert key.check.accepts(key.default), key.name
    assert resolve_memdir_settings(Settings(values={Source.USER: {"memdir": dict(SETTINGS_DEFAULTS)}})) == (
        DEFAULT_SETTINGS
    )


def test_the_readme_settings_table_is_the_table():
    rows = [line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("| `memdir.")]
    expected = []
    for key in KEYS:
        shown = key.shown or f"`{json.dumps(key.default)}`"
        expected.append(f"| `memdir.{key.name}` | {shown} | {key.doc} |")
    missing = "\n".join(row for row in expected if row not in rows)
    assert not missing, f"README.md lacks these settings rows (or words them differently):\n{missing}"
    assert rows == expected, "README.md's settings rows are not the table's, in the table's order"


def test_every_default_has_the_type_the_record_declares_for_it():
    for record, keys in ((MemdirSettings, KEYS), (SessionMemorySettings, SESSION_MEMORY_KEYS)):
        hints = typing.get_type_hints(record)
        for key in keys:
            declared = hints[key.attr]
            allowed = declared | int if float in typing.get_args(declared) or declared is float else declared
            assert isinstance(key.default, allowed), key.name  # an int is a float, as for the type checker


def test_a_configuration_without_memdir_settings_reads_the_defaults_by_attribute(tmp_path):
    config = _resolve(tmp_path, {})
    assert config.memdir == DEFAULT_SETTINGS
    assert config.memdir.extract_every_turns == 1 and config.memdir.selector == "auto"
    assert config.memdir.session_memory.minimum_tokens_between_update == 5000
    assert config.memdir.hook_selector == "lexical"


def test_the_highest_source_decides_a_key_and_an_explicit_null_is_a_value():
    settings = Settings(
        values={
            Source.USER: {"memdir": {"scanCap": 500, "selectorPrefilter": 10}},
            Source.PROJECT: {"memdir": {"scanCap": 300, "selectorPrefilter": None}},
        }
    )
    record = resolve_memdir_settings(settings)
    assert record.scan_cap == 300 and record.selector_prefilter is None


def test_a_misspelt_key_is_an_error_naming_the_nearest_key_and_the_file(tmp_path):
    error = _refusal(tmp_path, {"extractEveryTurn": 3})
    assert error.rule == "settings"
    assert "settings key memdir.extractEveryTurn is not a memdir setting; did you mean memdir.extractEveryTurns?" in (
        error.message
    )
    assert str(tmp_path / "project" / ".claude" / "settings.json") in error.message
    assert error.path == str(tmp_path / "project" / ".claude" / "settings.json")


def test_a_misspelt_session_memory_field_names_the_nearest_field(tmp_path):
    error = _refusal(tmp_path, {"sessionMemory": {"compact": {"maxToken": 9}}})
    assert "memdir.sessionMemory.compact.maxToken is not a memdir setting; did you mean " in error.message
    assert "memdir.sessionMemory.compact.maxTokens?" in error.message


@pytest.mark.parametrize(
    ("memdir", "words"),
    [
        ({"scanCap": 0}, "settings key memdir.scanCap must be a positive integer or null, not 0"),
        ({"skipIndex": "yes"}, 'settings key memdir.skipIndex must be true or false, not "yes"'),
        ({"teamMemory": 1}, "settings key memdir.teamMemory must be true, false or null, not 1"),
        ({"derivedIndex": "on"}, 'settings key memdir.derivedIndex must be true, false or null, not "on"'),
        ({"agentWrites": "some"}, 'settings key memdir.agentWrites must be direct, review or off, not "some"'),
        ({"extractEveryTurns": 0}, "settings key memdir.extractEveryTurns must be a positive integer, not 0"),
        ({"extractPrefilter": True}, "memdir.extractPrefilter must be a positive integer or null, not true"),
        ({"selectorPrefilter": 2.5}, "memdir.selectorPrefilter must be a positive integer or null, not 2.5"),
        ({"dreamMinHours": -1}, "settings key memdir.dreamMinHours must be a non-negative number, not -1"),
        ({"dreamMaxTurns": 0}, "settings key memdir.dreamMaxTurns must be a positive integer, not 0"),
        ({"model": ["x"]}, 'settings key memdir.model must be a model spec such as "anthropic:claude-sonnet-4-6"'),
        ({"claudeCodeVersion": "latest"}, 'settings key memdir.claudeCodeVersion must be a version such as "2.1.88"'),
        ({"sessionMemory": 5}, "settings key memdir.sessionMemory must be an object such as"),
        (
            {"sessionMemory": {"useForCompaction": "no"}},
            'settings key memdir.sessionMemory.useForCompaction must be true, false or null, not "no"',
        ),
    ],
)
def test_every_unusable_value_is_one_error_in_one_style(tmp_path, memdir, words):
    error = _refusal(tmp_path, memdir)
    assert error.rule == "settings"
    assert words in error.message
    where = tmp_path / "project" / ".claude" / "settings.json"
    assert f"(read from {where}, projectSettings); memdir " in error.message


def test_a_selector_kind_no_registry_knows_is_the_same_error_when_the_selector_is_built(tmp_path):
    from memdir.memory_session import MemorySession

    config = _resolve(tmp_path, {"selector": "psychic"})
    with pytest.raises(ConfigError) as raised:
        MemorySession(config).selected_kind()
    assert raised.value.rule == "settings"
    assert raised.value.message.startswith("settings key memdir.selector must be one of auto, llm, ")
    assert 'not "psychic" (read from ' in raised.value.message


def test_claude_codes_own_keys_are_refused_in_the_same_words(tmp_path):
    error = _refusal_of(tmp_path, {"autoMemoryEnabled": "yes"})
    assert error.rule == "settings"
    assert error.message.startswith('settings key autoMemoryEnabled must be true or false, not "yes" (read from ')


def test_claude_codes_own_keys_are_checked_in_the_table():
    assert {key.name for key in CLAUDE_KEYS} == {
        "autoMemoryEnabled",
        "autoMemoryDirectory",
        "autoDreamEnabled",
        "claudeMdExcludes",
    }
    settings = Settings(values={Source.USER: {"autoDreamEnabled": 1}})
    with pytest.raises(ConfigError, match="settings key autoDreamEnabled must be true or false, not 1"):
        claude_setting(settings, AUTO_DREAM_ENABLED)
    assert claude_setting(Settings(values={}), AUTO_DREAM_ENABLED) is None
    excludes = Settings(values={Source.USER: {"claudeMdExcludes": "*.md"}})
    with pytest.raises(ConfigError, match=r'must be a list of glob patterns or absolute paths, not "\*\.md"'):
        claude_setting(excludes, CLAUDE_MD_EXCLUDES)


def test_every_memdir_setting_the_docs_and_the_code_name_is_in_the_table():
    root = README.parent
    known = {f"memdir.{key.name}" for key in KEYS} | {f"memdir.sessionMemory.{key.name}" for key in SESSION_MEMORY_KEYS}
    known.add("memdir.sessionMemory.compact")
    files = [README, *(root / "docs").glob("*.md"), *(root / "src" / "memdir").rglob("*.py")]
    files += (root / "src" / "memdir").rglob("*.html")
    named = re.compile(r"memdir\.(?:sessionMemory\.)?[a-z]+[A-Z][A-Za-z.]*[A-Za-z]")
    unknown = set()
    for path in files:
        text = path.read_text(encoding="utf-8")
        for found in named.finditer(text):
            example = text.startswith(" is not a memdir setting", found.end())  # the docs' misspelt example
            if found.group() not in known and not example:
                unknown.add(f"{path.relative_to(root)}: {found.group()}")
    assert not unknown, "settings named but not declared in memdir/settings_table.py:\n" + "\n".join(sorted(unknown))
