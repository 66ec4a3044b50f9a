import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from memdir.config import extra_guidelines_from_env, read_environment, resolve_config
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.prompt import (
    PromptConfig,
    build_memory_lines,
    build_memory_prompt,
    memory_index_block,
    render_user_context,
)

SNAPSHOTS = Path(__file__).parent / "snapshots"


def check_snapshot(name, text):
    path = SNAPSHOTS / name
    if os.environ.get("MEMDIR_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


AUTO = PromptConfig(memory_dir="/home/u/.claude/projects/-p/memory/", transcripts_dir="/home/u/.claude/projects/-p/")


def test_the_auto_memory_section_has_every_section_in_order():
    text = build_memory_prompt(AUTO)
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == [
        "# auto memory",
        "## Types of memory",
        "## What NOT to save in memory",
        "## How to save memories",
        "## When to access memories",
        "## Before recommending from memory",
        "## Memory and other forms of persistence",
        "## Searching past context",
    ]
    assert "`/home/u/.claude/projects/-p/memory/`" in text
    assert "MEMORY.md" in text and "Step 2" in text
    check_snapshot("prompt_auto.md", text)


def test_the_section_never_contains_the_index_and_is_stable(tmp_path):
    environ = {"CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "HOME": str(tmp_path)}
    (tmp_path / "proj").mkdir()
    session = MemorySession(resolve_config(str(tmp_path / "proj"), env=environ))
    before = session.system_prompt_section()
    session.memory_dir.save(
        Memory(name="Release freeze", description="Mobile freeze starts 2026-03-05", type=MemoryType.PROJECT, body="")
    )
    session.clear()
    after = session.system_prompt_section()
    context = session.user_context()
    [saved] = session.memory_dir.headers()
    assert context is not None and f"]({saved.filename})" in context  # the index goes to the user context
    assert "Mobile freeze starts 2026-03-05" in context
    assert before is not None and after == before
    assert "Mobile freeze" not in after and saved.filename not in after
    assert after == build_memory_prompt(session.prompt_config())


def test_skip_index_drops_the_index_step():
    text = build_memory_prompt(PromptConfig(memory_dir="/m/", skip_index=True))
    assert "Step 2" not in text and "loaded into every conversation" not in text


def test_the_combined_team_variant_names_both_directories_and_scopes():
    text = build_memory_prompt(PromptConfig(memory_dir="/m/", team_dir="/m/team/", transcripts_dir="/t/"))
    assert text.startswith("# Memory\n")
    assert "## Memory scope" in text and "<scope>" in text
    assert "`/m/team/`" in text
    assert "credential" in text
    assert "path `/m/` and glob `*.md`" in text  # searching uses the private directory
    check_snapshot("prompt_team.md", text)


def test_extra_guidelines_come_from_the_env_and_are_appended_before_searching():
    extra = extra_guidelines_from_env(read_environment({"CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES": "Always be terse."}))
    assert extra == ("Always be terse.",)
    assert extra_guidelines_from_env(read_environment({"CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES": "   "})) == ()
    blocks = build_memory_lines(PromptConfig(memory_dir="/m/", extra_guidelines=extra))
    assert blocks[-2] == "Always be terse." and blocks[-1].startswith("## Searching past context")


def test_searching_can_be_switched_off_and_shown_as_shell_commands():
    assert "Searching past context" not in build_memory_prompt(
        PromptConfig(memory_dir="/m/", search_past_context=False)
    )
    shell = build_memory_prompt(PromptConfig(memory_dir="/m/", transcripts_dir="/t/", shell_search=True))
    assert 'grep -rn "<search term>" /m/ --include="*.md"' in shell
    assert 'grep -rn "<search term>" /t/ --include="*.jsonl"' in shell


def test_the_index_block_strips_frontmatter_and_comments_and_truncates():
    raw = "---\ntitle: x\n---\n<!-- private note -->\n" + "".join(f"- [T{i}](t{i}.md) — hook\n" for i in range(250))
    block = memory_index_block("/m/MEMORY.md", raw)
    assert block is not None
    assert block.startswith("Contents of /m/MEMORY.md (user's auto-memory, persists across conversations):\n\n- [T0]")
    assert "private note" not in block
    assert block.endswith(
        "> WARNING: MEMORY.md is 250 lines (limit: 200). Only part of it was loaded. Keep index "
        "entries to one line under ~200 chars; move detail into topic files."
    )


def test_an_empty_index_gives_no_block_and_team_content_is_wrapped():
    assert memory_index_block("/m/MEMORY.md", "  \n") is None
    block = memory_index_block("/m/team/MEMORY.md", "- [A](a.md) — x", team=True)
    assert block is not None
    assert "(shared team memory, synced across the organization)" in block
    assert '<team-memory-content source="shared">\n- [A](a.md) — x\n</team-memory-content>' in block


@pytest.mark.parametrize("blocks", [[], ["Contents of /x:\n\nhello"]])
def test_user_context_wraps_blocks_in_a_system_reminder(blocks):
    rendered = render_user_context(blocks)
    if not blocks:
        assert rendered is None
    else:
        assert rendered is not None
        assert rendered.startswith(
            "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n"
        )
        assert rendered.endswith("</system-reminder>")


def test_for_2_1_330_the_how_to_save_example_puts_the_type_under_metadata():
    text = build_memory_prompt(replace(AUTO, nested_frontmatter=True))
    check_snapshot("prompt_auto_2_1_330.md", text)
    assert "metadata:\n  type: {{user, feedback, project or reference}}\n---" in text
    assert "\ntype: {{" not in text
    skipped = build_memory_prompt(PromptConfig(memory_dir="/m/", skip_index=True, nested_frontmatter=True))
    assert "metadata:\n  type: {{user, feedback, project or reference}}\n---" in skipped


@pytest.mark.parametrize(("version", "type_line"), [("2.1.88", "\ntype: {{"), ("2.1.330", "\n  type: {{")])
def test_the_session_prompt_shows_the_frontmatter_of_the_claude_code_release_in_use(tmp_path, version, type_line):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"memdir": {"claudeCodeVersion": version}}), encoding="utf-8")
    (tmp_path / "proj").mkdir()
    environ = {"CLAUDE_CONFIG_DIR": str(home), "HOME": str(tmp_path)}
    section = MemorySession(resolve_config(str(tmp_path / "proj"), env=environ)).system_prompt_section()
    assert section is not None and type_line in section
    assert ("metadata:" in section) is (version == "2.1.330")
