import os
import shutil
import subprocess

import pytest

from memdir.instructions import InstructionType, load_instruction_files
from memdir.settings import Source


def test_files_load_in_context_order_from_managed_to_the_memory_index(tree):
    tree.write(tree.managed / "CLAUDE.md", "managed policy")
    tree.write(tree.managed / ".claude" / "rules" / "policy.md", "managed rule")
    tree.write(tree.config_home / "CLAUDE.md", "user file")
    tree.write(tree.config_home / "rules" / "style.md", "user rule")
    tree.write(tree.root / "work" / "CLAUDE.md", "outer project")
    tree.write(tree.project / "CLAUDE.md", "project")
    tree.write(tree.project / ".claude" / "CLAUDE.md", "dot-claude project")
    tree.write(tree.project / ".claude" / "rules" / "b.md", "rule b")
    tree.write(tree.project / ".claude" / "rules" / "nested" / "a.md", "nested rule a")
    tree.write(tree.project / "CLAUDE.local.md", "local")
    config = tree.config()
    tree.write(config.memory_dir + "MEMORY.md", "- [Role](user_role.md) — backend lead")

    chain = tree.load()

    assert tree.paths(chain)[:-1] == [
        "managed/CLAUDE.md",
        "managed/.claude/rules/policy.md",
        "home/.claude/CLAUDE.md",
        "home/.claude/rules/style.md",
        "work/CLAUDE.md",
        "work/app/CLAUDE.md",
        "work/app/.claude/CLAUDE.md",
        "work/app/.claude/rules/b.md",
        "work/app/.claude/rules/nested/a.md",
        "work/app/CLAUDE.local.md",
    ]
    assert chain.files[-1].path == config.memory_dir + "MEMORY.md"
    assert [f.type for f in chain.files] == [
        InstructionType.MANAGED,
        InstructionType.MANAGED,
        InstructionType.USER,
        InstructionType.USER,
        InstructionType.PROJECT,
        InstructionType.PROJECT,
        InstructionType.PROJECT,
        InstructionType.PROJECT,
        InstructionType.PROJECT,
        InstructionType.LOCAL,
        InstructionType.AUTO_MEM,
    ]


def test_a_working_directory_below_the_project_loads_every_level_down_to_it(tree):
    sub = tree.project / "services" / "api"
    sub.mkdir(parents=True)
    tree.write(tree.project / "CLAUDE.md", "top")
    tree.write(sub / "CLAUDE.md", "api")
    tree.write(tree.project / "services" / "CLAUDE.local.md", "services local")
    chain = tree.load(cwd=sub)
    assert tree.paths(chain) == [
        "work/app/CLAUDE.md",
        "work/app/services/CLAUDE.local.md",
        "work/app/services/api/CLAUDE.md",
    ]


def test_disabled_settings_sources_switch_off_their_file_types(tree):
    tree.write(tree.config_home / "CLAUDE.md", "user")
    tree.write(tree.project / "CLAUDE.md", "project")
    tree.write(tree.project / "CLAUDE.local.md", "local")
    assert tree.paths(tree.load(disabled_sources={Source.USER, Source.LOCAL})) == ["work/app/CLAUDE.md"]
    assert tree.paths(tree.load(disabled_sources={Source.PROJECT})) == [
        "home/.claude/CLAUDE.md",
        "work/app/CLAUDE.local.md",
    ]


def test_a_rule_with_paths_frontmatter_is_held_back_and_attached_to_matching_files(tree):
    tree.write(tree.project / ".claude" / "rules" / "always.md", "always on")
    tree.write(
        tree.project / ".claude" / "rules" / "api.md",
        '---\npaths: "src/api/**, *.{sql,psql}"\n---\nValidate every request body.',
    )
    tree.write(tree.project / ".claude" / "rules" / "all.md", "---\npaths: ['**']\n---\nEverywhere rule.")

    chain = tree.load()

    assert tree.paths(chain) == ["work/app/.claude/rules/all.md", "work/app/.claude/rules/always.md"]
    (rule,) = chain.conditional
    assert rule.globs == ("src/api", "*.sql", "*.psql")
    assert chain.rules_for(str(tree.project / "src" / "api" / "routes" / "users.ts")) == [rule]
    assert chain.rules_for(str(tree.project / "db" / "schema.psql")) == [rule]
    assert chain.rules_for(str(tree.project / "src" / "web" / "page.ts")) == []
    assert chain.rules_for(str(tree.root / "elsewhere" / "src" / "api" / "x.ts")) == []


def test_claude_md_excludes_skip_user_project_and_local_files_but_never_managed(tree):
    tree.write(tree.managed / "CLAUDE.md", "managed")
    tree.write(tree.managed / "managed-settings.json", '{"claudeMdExcludes": ["**/CLAUDE.md"]}')
    tree.write(tree.project / "CLAUDE.md", "project")
    tree.write(tree.project / ".claude" / "rules" / "legacy" / "old.md", "legacy rule")
    tree.write(tree.project / ".claude" / "rules" / "new.md", "new rule")
    tree.write(tree.project / "CLAUDE.local.md", "local")
    tree.settings("local", {"claudeMdExcludes": [str(tree.project / "CLAUDE.local.md"), "**/legacy/**"]})

    chain = tree.load()

    assert tree.paths(chain) == ["managed/CLAUDE.md", "work/app/.claude/rules/new.md"]
    assert {(s.rule, os.path.basename(s.path)) for s in chain.skipped} == {
        ("excluded", "CLAUDE.md"),
        ("excluded", "old.md"),
        ("excluded", "CLAUDE.local.md"),
    }


def test_an_absolute_exclude_written_through_a_symlinked_directory_still_matches(tree):
    tree.write(tree.project / "CLAUDE.md", "project")
    alias = tree.root / "alias"
    alias.symlink_to(tree.root / "work", target_is_directory=True)
    tree.settings("local", {"claudeMdExcludes": [str(alias / "app" / "*.md")]})
    assert tree.paths(tree.load()) == []


def test_a_symlinked_claude_md_is_loaded_once_under_its_own_name(tree):
    shared = tree.write(tree.project / "docs" / "AGENTS.md", "shared agent notes @./extra.md")
    tree.write(tree.project / "docs" / "extra.md", "next to the target")
    (tree.project / "CLAUDE.md").symlink_to(shared)
    tree.write(tree.project / "CLAUDE.local.md", "see @docs/AGENTS.md")

    chain = tree.load()

    assert tree.paths(chain) == ["work/app/CLAUDE.md", "work/app/docs/extra.md", "work/app/CLAUDE.local.md"]
    assert chain.files[1].included_from == str(tree.project / "CLAUDE.md")
    assert any(s.rule == "already-loaded" for s in chain.skipped)


def test_a_symlinked_rules_directory_cycle_is_walked_once(tree):
    rules = tree.project / ".claude" / "rules"
    tree.write(rules / "one.md", "rule one")
    (rules / "loop").symlink_to(rules, target_is_directory=True)
    assert tree.paths(tree.load()) == ["work/app/.claude/rules/one.md"]


def test_auto_and_team_indexes_follow_the_memory_settings(tree):
    config = tree.config(MEMDIR_TEAM_SERVER="http://127.0.0.1:9")
    tree.write(config.memory_dir + "MEMORY.md", "private index")
    tree.write(config.team_dir + "MEMORY.md", "team index")
    chain = tree.load(env={"MEMDIR_TEAM_SERVER": "http://127.0.0.1:9"})
    assert [f.type for f in chain.files] == [InstructionType.AUTO_MEM, InstructionType.TEAM_MEM]
    assert tree.load(env={"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}).files == ()


def test_the_disable_switch_loads_nothing(tree):
    tree.write(tree.project / "CLAUDE.md", "project")
    chain = tree.load(env={"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1"})
    assert chain.files == () and chain.disabled is not None


def test_add_dirs_load_only_when_the_env_switch_is_on(tree):
    extra = tree.root / "shared-lib"
    tree.write(extra / "CLAUDE.md", "library conventions")
    tree.write(extra / ".claude" / "rules" / "r.md", "library rule")
    assert tree.load(add_dirs=[str(extra)]).files == ()
    chain = tree.load(add_dirs=[str(extra)], env={"CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD": "1"})
    assert tree.paths(chain) == ["shared-lib/CLAUDE.md", "shared-lib/.claude/rules/r.md"]


def test_files_over_forty_thousand_characters_are_flagged_not_truncated(tree):
    tree.write(tree.project / "CLAUDE.md", "x" * 40_001)
    (file,) = tree.load().files
    assert file.too_large and file.chars == 40_001 and len(file.content) == 40_001


def test_frontmatter_and_block_comments_are_removed_and_empty_files_skipped(tree):
    tree.write(tree.project / "CLAUDE.md", "---\ntitle: x\n---\n<!-- maintainer note -->\nUse tabs.\n")
    tree.write(tree.project / "CLAUDE.local.md", "<!-- only a comment -->\n")
    (file,) = tree.load().files
    assert file.content == "Use tabs.\n"


def test_load_instruction_files_returns_the_files_in_order(tree):
    tree.write(tree.project / "CLAUDE.md", "project")
    files = load_instruction_files(tree.config())
    assert [f.path for f in files] == [str(tree.project / "CLAUDE.md")]


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_worktree_nested_in_its_repository_skips_the_repository_files_between_them(tree):
    repo = tree.project
    _git("init", "-q", cwd=repo)
    _git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    worktree = repo / "trees" / "feature"
    _git("worktree", "add", "-q", str(worktree), cwd=repo)
    tree.write(repo / "CLAUDE.md", "repo root instructions")
    tree.write(repo / "trees" / "CLAUDE.md", "between repo and worktree")
    tree.write(repo / "trees" / "CLAUDE.local.md", "local files still load")
    tree.write(worktree / "CLAUDE.md", "worktree instructions")
    tree.write(tree.root / "work" / "CLAUDE.md", "above the repository")

    chain = tree.load(cwd=worktree)

    assert tree.paths(chain) == [
        "work/CLAUDE.md",
        "work/app/trees/CLAUDE.local.md",
        "work/app/trees/feature/CLAUDE.md",
    ]
    assert tree.paths(tree.load(cwd=repo)) == ["work/CLAUDE.md", "work/app/CLAUDE.md"]
