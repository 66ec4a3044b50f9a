import json

from click.testing import CliRunner

from memdir.cli import cli
from memdir.instructions import render_instructions
from memdir.memory_session import MemorySession


def test_the_rendered_context_has_one_described_block_per_file_in_order(tree):
    tree.write(tree.managed / "CLAUDE.md", "policy")
    tree.write(tree.config_home / "CLAUDE.md", "mine")
    tree.write(tree.project / "CLAUDE.md", "  checked in  \n")
    tree.write(tree.project / "CLAUDE.local.md", "private")
    env = {"MEMDIR_TEAM_SERVER": "http://127.0.0.1:9"}
    config = tree.config(**env)
    tree.write(config.memory_dir + "MEMORY.md", "- [Role](user_role.md) — lead")
    tree.write(config.team_dir + "MEMORY.md", "- [CI](ci.md) — runbook")

    text = render_instructions(tree.load(env=env).files)

    assert text is not None and text.startswith("<system-reminder>\nAs you answer")
    assert "# claudeMd\n" in text
    blocks = [
        f"Contents of {tree.managed}/CLAUDE.md (user's private global instructions for all projects):\n\npolicy",
        f"Contents of {tree.config_home}/CLAUDE.md (user's private global instructions for all projects):\n\nmine",
        f"Contents of {tree.project}/CLAUDE.md (project instructions, checked into the codebase):\n\nchecked in",
        f"Contents of {tree.project}/CLAUDE.local.md (user's private project instructions, not checked in):\n\nprivate",
        f"Contents of {config.memory_dir}MEMORY.md (user's auto-memory, persists across conversations):\n\n"
        "- [Role](user_role.md) — lead",
        f"Contents of {config.team_dir}MEMORY.md (shared team memory, synced across the organization):\n\n"
        '<team-memory-content source="shared">\n- [CI](ci.md) — runbook\n</team-memory-content>',
    ]
    positions = [text.index(block) for block in blocks]
    assert positions == sorted(positions)
    assert "\n\n".join(blocks) in text


def test_skip_index_leaves_the_memory_indexes_out(tree):
    tree.write(tree.project / "CLAUDE.md", "project")
    config = tree.config()
    tree.write(config.memory_dir + "MEMORY.md", "index")
    text = render_instructions(tree.load().files, skip_index=True)
    assert text is not None and "MEMORY.md" not in text and "project" in text
    assert render_instructions([]) is None


def test_an_oversized_index_is_truncated_in_the_chain(tree):
    config = tree.config()
    tree.write(config.memory_dir + "MEMORY.md", "\n".join(f"- line {n}" for n in range(300)))
    (file,) = tree.load().files
    assert "> WARNING: MEMORY.md is 300 lines (limit: 200)." in file.content
    assert "- line 199" in file.content and "- line 200" not in file.content


def test_a_session_can_carry_the_whole_chain_or_only_the_index(tree):
    tree.write(tree.project / "CLAUDE.md", "Use tabs.")
    config = tree.config()
    tree.write(config.memory_dir + "MEMORY.md", "- [Role](user_role.md) — lead")
    only_index = MemorySession(config).user_context()
    assert only_index is not None and "Use tabs." not in only_index
    full = MemorySession(config, instructions=True).user_context()
    assert full is not None and "Use tabs." in full and "[Role](user_role.md)" in full
    assert full.index("Use tabs.") < full.index("[Role]")


def test_the_cli_lists_the_chain_as_json_and_as_text(tree, monkeypatch):
    for key, value in tree.env.items():
        monkeypatch.setenv(key, value)
    tree.write(tree.project / "CLAUDE.md", "root @extra.md")
    tree.write(tree.project / "extra.md", "x" * 40_001)
    tree.write(tree.project / ".claude" / "rules" / "api.md", "---\npaths: src/api/**\n---\napi rule")
    runner = CliRunner()

    result = runner.invoke(cli, ["--project", str(tree.project), "instructions", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [
        {"path": str(tree.project / "CLAUDE.md"), "type": "Project", "included_from": None, "chars": 14},
        {
            "path": str(tree.project / "extra.md"),
            "type": "Project",
            "included_from": str(tree.project / "CLAUDE.md"),
            "chars": 40_001,
        },
    ]

    text = runner.invoke(cli, ["--project", str(tree.project), "instructions", "--touch", "src/api/x.ts"])
    assert text.exit_code == 0
    assert f"1. [Project] {tree.project}/CLAUDE.md (14 chars) - project instructions in {tree.project}" in text.stdout
    assert "warning: over 40000 characters" in text.stderr
    assert f"conditional: {tree.project}/.claude/rules/api.md applies to src/api" in text.stdout
    monkeypatch.chdir(tree.project)
    touched = runner.invoke(cli, ["instructions", "--touch", "src/api/x.ts"])
    assert f"touching src/api/x.ts attaches: {tree.project}/.claude/rules/api.md" in touched.stdout
