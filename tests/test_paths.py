from __future__ import annotations

import shutil
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir.config import read_environment
from memdir.errors import ConfigError
from memdir.paths import (
    auto_mem_entrypoint,
    auto_mem_path,
    auto_memory_disabled_reason,
    clear_git_root_cache,
    config_home,
    djb2,
    find_canonical_git_root,
    find_git_root,
    find_project_dir,
    is_auto_mem_path,
    is_auto_memory_enabled,
    memory_base,
    project_root,
    projects_dir,
    resolve_canonical_root,
    sanitize_path,
    team_mem_path,
    validate_memory_path,
)
from memdir.settings import Settings, Source

LONG = "/home/user/" + "very-long-directory-name/" * 10 + "project"
LONG_PREFIX = (
    "-home-user-very-long-directory-name-very-long-directory-name-very-long-directory-name-very-long-"
    "directory-name-very-long-directory-name-very-long-directory-name-very-long-directory-name-very-long-dire"
)


@pytest.fixture(autouse=True)
def _fresh_git_cache() -> Iterator[None]:
    clear_git_root_cache()
    yield
    clear_git_root_cache()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/Users/foo/my-project", "-Users-foo-my-project"),
        ("/home/alice/code/my_app", "-home-alice-code-my-app"),
        ("C:\\Users\\bob\\proj", "C--Users-bob-proj"),
        ("/tmp/a b/c.d", "-tmp-a-b-c-d"),
        ("plugin:name:server", "plugin-name-server"),
        ("/", "-"),
        ("/home/ünïcode/プロジェクト", "-home--n-code-------"),
        ("/home/u/😀proj", "-home-u---proj"),
        (unicodedata.normalize("NFC", "/Users/josé/p"), "-Users-jos--p"),
        (unicodedata.normalize("NFD", "/Users/josé/p"), "-Users-jose--p"),
    ],
)
def test_sanitize_path_matches_reference_vectors(raw: str, expected: str) -> None:
    assert sanitize_path(raw) == expected


def test_sanitize_path_of_unicode_path_is_twenty_units_long() -> None:
    assert len(sanitize_path("/home/ünïcode/プロジェクト")) == 20


def test_long_path_is_cut_at_200_and_suffixed_with_djb2_in_base36() -> None:
    result = sanitize_path(LONG)
    assert result[:200] == LONG_PREFIX
    assert result == LONG_PREFIX + "-50u9ca"
    assert len(result) == 207


def test_path_of_exactly_200_units_is_not_hashed() -> None:
    assert sanitize_path("a" * 200) == "a" * 200
    assert sanitize_path("a" * 201).startswith("a" * 200 + "-")


@pytest.mark.parametrize(
    ("raw", "base36"),
    [
        ("/Users/foo/my-project", "jiemc7"),
        ("/home/alice/code/my_app", "7bolwg"),
        ("plugin:name:server", "ugul6d"),
        ("/", "1b"),
    ],
)
def test_djb2_matches_reference_values(raw: str, base36: str) -> None:
    assert int(base36, 36) == abs(djb2(raw))


def test_djb2_wraps_to_signed_32_bits_over_utf16_units() -> None:
    assert djb2("") == 0
    assert djb2("a") == 97
    assert -(2**31) <= djb2("x" * 1000) < 2**31
    assert djb2("😀") == ((0xD83D * 31) + 0xDE00)


def test_find_project_dir_finds_exact_and_older_long_names(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    (projects / "-Users-foo-my-project").mkdir(parents=True)
    assert find_project_dir(str(projects), "/Users/foo/my-project") == str(projects / "-Users-foo-my-project")
    assert find_project_dir(str(projects), "/Users/foo/other") is None
    assert find_project_dir(str(projects), LONG) is None
    older = projects / (LONG_PREFIX + "-3ojalz4tsi4xn")
    older.mkdir()
    assert find_project_dir(str(projects), LONG) == str(older)
    current = projects / (LONG_PREFIX + "-50u9ca")
    current.mkdir()
    assert find_project_dir(str(projects), LONG) == str(current)
    assert find_project_dir(str(tmp_path / "absent"), LONG) is None


def test_config_home_defaults_to_dot_claude_and_honours_env() -> None:
    assert config_home(read_environment({"HOME": "/home/alice"})) == "/home/alice/.claude"
    assert config_home(read_environment({"HOME": "/home/alice", "CLAUDE_CONFIG_DIR": "/srv/cfg/"})) == "/srv/cfg"
    assert config_home(read_environment({"HOME": "/home/alice", "CLAUDE_CONFIG_DIR": "~/cfg"})) == "/home/alice/cfg"
    nfd = unicodedata.normalize("NFD", "/srv/josé")
    assert config_home(read_environment({"CLAUDE_CONFIG_DIR": nfd})) == unicodedata.normalize("NFC", nfd)


def test_remote_memory_dir_moves_memory_but_not_projects() -> None:
    env = {"HOME": "/home/alice", "CLAUDE_CODE_REMOTE_MEMORY_DIR": "/mnt/remote"}
    assert memory_base(read_environment(env)) == "/mnt/remote"
    assert projects_dir(config_home(read_environment(env))) == "/home/alice/.claude/projects"
    assert (
        memory_base(read_environment({"HOME": "/home/alice", "CLAUDE_CODE_REMOTE_MEMORY_DIR": ""}))
        == "/home/alice/.claude"
    )


@pytest.mark.parametrize(
    ("raw", "expand", "expected"),
    [
        ("/data/mem", False, "/data/mem/"),
        ("/data/mem///", False, "/data/mem/"),
        ("/data/../data/mem/", False, "/data/mem/"),
        ("//server/share", False, "/server/share/"),
        ("~/mem", True, "/home/u/mem/"),
        ("relative/dir", False, None),
        ("/a", False, None),
        ("/", False, None),
        ("~/mem", False, None),
        ("~/", True, None),
        ("~/.", True, None),
        ("~/foo/..", True, None),
        ("~/..", True, None),
        ("~", True, None),
        ("/x\0y", False, None),
        ("", False, None),
        (None, True, None),
    ],
)
def test_validate_memory_path_matches_reference_vectors(raw: str | None, expand: bool, expected: str | None) -> None:
    assert validate_memory_path(raw, home="/home/u" if expand else None) == expected


def test_validate_memory_path_returns_nfc() -> None:
    nfd = unicodedata.normalize("NFD", "/data/josé")
    assert validate_memory_path(nfd, home=None) == unicodedata.normalize("NFC", "/data/josé/")


ALICE = {"HOME": "/home/alice"}


def test_default_auto_memory_dir_matches_reference_vector() -> None:
    auto = auto_mem_path("/home/alice/code/my_app", settings=Settings.empty(), environment=read_environment(ALICE))
    assert auto == "/home/alice/.claude/projects/-home-alice-code-my-app/memory/"
    assert auto_mem_entrypoint(auto) == "/home/alice/.claude/projects/-home-alice-code-my-app/memory/MEMORY.md"
    assert team_mem_path(auto) == "/home/alice/.claude/projects/-home-alice-code-my-app/memory/team/"


def test_remote_memory_dir_is_the_memory_base() -> None:
    env = {**ALICE, "CLAUDE_CODE_REMOTE_MEMORY_DIR": "/mnt/remote/"}
    auto = auto_mem_path("/home/alice/code/my_app", settings=Settings.empty(), environment=read_environment(env))
    assert auto == "/mnt/remote/projects/-home-alice-code-my-app/memory/"


def test_override_env_wins_and_is_not_tilde_expanded() -> None:
    trusted = Settings({Source.USER: {"autoMemoryDirectory": "~/from-settings"}})
    env = {**ALICE, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "/data/override//"}
    assert auto_mem_path("/p/q", settings=trusted, environment=read_environment(env)) == "/data/override/"
    env = {**ALICE, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "~/override"}
    assert auto_mem_path("/p/q", settings=trusted, environment=read_environment(env)) == "/home/alice/from-settings/"


def test_trusted_setting_is_used_with_tilde_expansion() -> None:
    settings = Settings({Source.LOCAL: {"autoMemoryDirectory": "~/mem"}, Source.USER: {"autoMemoryDirectory": "/u"}})
    assert auto_mem_path("/p/q", settings=settings, environment=read_environment(ALICE)) == "/home/alice/mem/"


def test_project_settings_cannot_choose_the_memory_directory() -> None:
    settings = Settings({Source.PROJECT: {"autoMemoryDirectory": "/tmp/attacker"}})
    assert (
        auto_mem_path("/p/q", settings=settings, environment=read_environment(ALICE))
        == "/home/alice/.claude/projects/-p-q/memory/"
    )


def test_invalid_first_trusted_value_falls_through_to_default_not_to_later_sources() -> None:
    settings = Settings(
        {Source.POLICY: {"autoMemoryDirectory": "~/"}, Source.USER: {"autoMemoryDirectory": "/data/valid"}}
    )
    assert (
        auto_mem_path("/p/q", settings=settings, environment=read_environment(ALICE))
        == "/home/alice/.claude/projects/-p-q/memory/"
    )


def test_non_string_memory_directory_setting_is_a_config_error() -> None:
    settings = Settings({Source.USER: {"autoMemoryDirectory": 42}})
    with pytest.raises(ConfigError, match="userSettings"):
        auto_mem_path("/p/q", settings=settings, environment=read_environment(ALICE))


def test_auto_memory_dir_is_nfc_with_one_trailing_separator() -> None:
    nfd_root = unicodedata.normalize("NFD", "/Users/josé/p")
    auto = auto_mem_path(
        nfd_root, settings=Settings.empty(), environment=read_environment({"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c/"})
    )
    assert auto == "/c/projects/-Users-jos--p/memory/"
    nfd_setting = Settings({Source.USER: {"autoMemoryDirectory": unicodedata.normalize("NFD", "/m/josé///")}})
    assert auto_mem_path("/p", settings=nfd_setting, environment=read_environment(ALICE)) == unicodedata.normalize(
        "NFC", "/m/josé/"
    )


def test_is_auto_mem_path_is_a_prefix_test_against_the_trailing_separator() -> None:
    auto = "/home/alice/.claude/projects/-p/memory/"
    assert is_auto_mem_path("/home/alice/.claude/projects/-p/memory/x.md", auto)
    assert is_auto_mem_path("/home/alice/.claude/projects/-p/other/../memory/x.md", auto)
    assert is_auto_mem_path("/home/alice/.claude/projects/-p/memory/", auto)
    assert not is_auto_mem_path("/home/alice/.claude/projects/-p/memory", auto)
    assert not is_auto_mem_path("/home/alice/.claude/projects/-p/memory-evil/x.md", auto)
    assert not is_auto_mem_path("/home/alice/.claude/projects/-p/memory/../x.md", auto)


def _make_worktree(tmp_path: Path, *, back_link: str | None = None, commondir: str = "../..") -> tuple[Path, Path]:
    main = tmp_path / "home" / "alice" / "code" / "my_app"
    worktree = tmp_path / "wt" / "feature"
    meta = main / ".git" / "worktrees" / "feature"
    meta.mkdir(parents=True)
    worktree.mkdir(parents=True)
    (meta / "commondir").write_text(commondir + "\n", encoding="utf-8")
    (meta / "gitdir").write_text((back_link or str(worktree / ".git")) + "\n", encoding="utf-8")
    (worktree / ".git").write_text(f"gitdir: {meta}\n", encoding="utf-8")
    return main, worktree


@pytest.fixture
def real_tmp(tmp_path: Path) -> Path:
    return Path(project_root(str(tmp_path)))


def test_worktree_shares_the_main_checkouts_memory_dir(real_tmp: Path) -> None:
    main, worktree = _make_worktree(real_tmp)
    assert find_git_root(str(worktree / "src" / "deep")) == str(worktree)
    assert resolve_canonical_root(str(worktree)) == str(main)
    assert find_canonical_git_root(str(worktree)) == str(main)
    env = {"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c"}
    assert auto_mem_path(str(worktree), settings=Settings.empty(), environment=read_environment(env)) == auto_mem_path(
        str(main), settings=Settings.empty(), environment=read_environment(env)
    )
    assert auto_mem_path(str(worktree), settings=Settings.empty(), environment=read_environment(env)) == (
        f"/c/projects/{sanitize_path(str(main))}/memory/"
    )


def test_worktree_whose_back_link_points_elsewhere_keeps_its_own_root(real_tmp: Path) -> None:
    elsewhere = real_tmp / "elsewhere"
    (elsewhere / ".git").mkdir(parents=True)
    _main, worktree = _make_worktree(real_tmp, back_link=str(elsewhere / ".git"))
    assert find_canonical_git_root(str(worktree)) == str(worktree)
    env = {"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c"}
    assert auto_mem_path(str(worktree), settings=Settings.empty(), environment=read_environment(env)) == (
        f"/c/projects/{sanitize_path(str(worktree))}/memory/"
    )
    assert sanitize_path(str(worktree)).endswith("-wt-feature")


def test_worktree_outside_the_common_dirs_worktrees_folder_is_not_followed(real_tmp: Path) -> None:
    _main, worktree = _make_worktree(real_tmp, commondir="../../../../other/.git")
    assert resolve_canonical_root(str(worktree)) == str(worktree)


def test_git_file_without_commondir_is_its_own_root(real_tmp: Path) -> None:
    module = real_tmp / "sub"
    (real_tmp / "modules" / "sub").mkdir(parents=True)
    module.mkdir()
    (module / ".git").write_text(f"gitdir: {real_tmp / 'modules' / 'sub'}\n", encoding="utf-8")
    assert resolve_canonical_root(str(module)) == str(module)


def test_normal_repository_is_its_own_canonical_root(real_tmp: Path) -> None:
    (real_tmp / "repo" / ".git").mkdir(parents=True)
    assert find_canonical_git_root(str(real_tmp / "repo" / "a" / "..")) == str(real_tmp / "repo")
    assert resolve_canonical_root(str(real_tmp / "missing")) == str(real_tmp / "missing")


def test_no_git_root_outside_a_repository(real_tmp: Path) -> None:
    if find_git_root(str(real_tmp)) is not None:
        pytest.skip("the temporary directory is itself inside a git repository")
    assert find_canonical_git_root(str(real_tmp / "x")) is None


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_real_git_worktree_resolves_to_main_checkout(real_tmp: Path) -> None:
    main = real_tmp / "main"
    main.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    worktree = real_tmp / "wt" / "feature"
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(worktree)], check=True)
    assert find_canonical_git_root(str(worktree)) == str(main)
    assert find_canonical_git_root(str(main)) == str(main)


def test_project_root_is_the_realpath_in_nfc(real_tmp: Path) -> None:
    target = real_tmp / unicodedata.normalize("NFC", "josé")
    target.mkdir()
    (real_tmp / "link").symlink_to(target)
    assert project_root(str(real_tmp / "link")) == str(target)


OFF = {"1", "true", "YES", " on "}
FALSY = {"0", "false", "No", "off "}


@pytest.mark.parametrize("value", sorted(OFF))
def test_disable_env_truthy_turns_memory_off(value: str) -> None:
    env = {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": value}
    assert not is_auto_memory_enabled(Settings.empty(), read_environment(env))
    assert "CLAUDE_CODE_DISABLE_AUTO_MEMORY" in (
        auto_memory_disabled_reason(Settings.empty(), read_environment(env)) or ""
    )


@pytest.mark.parametrize("value", sorted(FALSY))
def test_disable_env_defined_falsy_forces_memory_on_and_skips_later_checks(value: str) -> None:
    settings = Settings({Source.POLICY: {"autoMemoryEnabled": False}})
    env = {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": value, "CLAUDE_CODE_SIMPLE": "1", "CLAUDE_CODE_REMOTE": "1"}
    assert is_auto_memory_enabled(settings, read_environment(env))


def test_bare_mode_turns_memory_off() -> None:
    assert not is_auto_memory_enabled(Settings.empty(), read_environment({"CLAUDE_CODE_SIMPLE": "true"}))
    assert is_auto_memory_enabled(Settings.empty(), read_environment({"CLAUDE_CODE_SIMPLE": "0"}))


def test_remote_mode_needs_a_remote_memory_dir() -> None:
    assert not is_auto_memory_enabled(Settings.empty(), read_environment({"CLAUDE_CODE_REMOTE": "1"}))
    assert not is_auto_memory_enabled(
        Settings.empty(), read_environment({"CLAUDE_CODE_REMOTE": "1", "CLAUDE_CODE_REMOTE_MEMORY_DIR": ""})
    )
    assert is_auto_memory_enabled(
        Settings.empty(), read_environment({"CLAUDE_CODE_REMOTE": "1", "CLAUDE_CODE_REMOTE_MEMORY_DIR": "/mnt/m"})
    )


def test_project_settings_can_opt_a_project_out() -> None:
    settings = Settings({Source.USER: {"autoMemoryEnabled": True}, Source.PROJECT: {"autoMemoryEnabled": False}})
    assert not is_auto_memory_enabled(settings, read_environment({}))
    assert "projectSettings" in (auto_memory_disabled_reason(settings, read_environment({})) or "")
    settings = Settings({Source.LOCAL: {"autoMemoryEnabled": True}, Source.PROJECT: {"autoMemoryEnabled": False}})
    assert is_auto_memory_enabled(settings, read_environment({}))


def test_memory_is_on_by_default() -> None:
    assert is_auto_memory_enabled(Settings.empty(), read_environment({}))
    assert auto_memory_disabled_reason(Settings.empty(), read_environment({})) is None
    assert is_auto_memory_enabled(Settings.empty(), read_environment({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": ""}))


def test_non_boolean_auto_memory_enabled_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="autoMemoryEnabled"):
        is_auto_memory_enabled(Settings({Source.USER: {"autoMemoryEnabled": "no"}}), read_environment({}))


def test_djb2_counts_an_astral_character_as_its_two_surrogates_and_a_lone_surrogate_as_itself() -> None:
    assert djb2("\U0001f600") == djb2("\ud83d\ude00") == (0xD83D * 31 + 0xDE00)
    assert djb2("\udc00") == 0xDC00
