import os
from dataclasses import replace
from pathlib import Path

from memdir.prompt import PromptConfig, build_memory_prompt
from memdir.templates import frontmatter_type, render_template

SNAPSHOTS = Path(__file__).parent / "snapshots"


def check_snapshot(name, text):
    path = SNAPSHOTS / name
    if os.environ.get("MEMDIR_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


DAILY = PromptConfig(
    memory_dir="/home/u/.claude/projects/-p/memory/", transcripts_dir="/home/u/.claude/projects/-p/", daily_log=True
)


def test_the_daily_log_prompt_matches_its_snapshot():
    check_snapshot("prompt_daily_log.md", build_memory_prompt(DAILY))


def test_the_daily_log_prompt_without_index_drops_only_the_memory_md_section():
    full = build_memory_prompt(DAILY)
    skipped = build_memory_prompt(replace(DAILY, skip_index=True))
    assert "## MEMORY.md" in full and "## MEMORY.md" not in skipped
    assert full.replace("\n\n" + render_template("daily_log_index"), "") == skipped


def test_the_dream_prompts_match_their_snapshots():
    flat = frontmatter_type(nested=False, value="user | feedback | project | reference", indent="  ")
    system = render_template(
        "dream_consolidation", memoryDir="/m/", transcriptsDir="/t/", maxTurns="30", typeField=flat, linkRule=""
    )
    task = render_template("dream_task", sessionCount="1", sessions="- abc", logCount="0", logs="- (none)")
    check_snapshot("dream_system.md", system)
    check_snapshot("dream_task.md", task)
    for phase in ("Phase 1: orient", "Phase 2: gather", "Phase 3: consolidate", "Phase 4: prune and index"):
        assert phase in system
    assert "200 lines" in system and "25KB" in system and "150 characters" in system


def test_the_dream_prompt_for_2_1_330_puts_the_type_under_metadata():
    nested = frontmatter_type(nested=True, value="user | feedback | project | reference", indent="  ")
    system = render_template(
        "dream_consolidation",
        memoryDir="/m/",
        transcriptsDir="/t/",
        maxTurns="30",
        typeField=nested,
        linkRule="\n- " + render_template("memory_links"),
    )
    check_snapshot("dream_system_2_1_330.md", system)
    assert "add `replaces: <older file>` to its frontmatter.\n- Link related memories: " in system
    assert "[[name]]" in system and "[[" not in render_template("dream_consolidation", linkRule="")
    assert "  metadata:\n    type: user | feedback | project | reference\n  ---" in system
