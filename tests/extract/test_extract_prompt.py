import os
from pathlib import Path

from _extract_helpers import assistant, user

from memdir.extract import ExtractionPromptConfig, build_conversation_message, build_extraction_prompt

SNAPSHOTS = Path(__file__).parent.parent / "snapshots"
MEM = "/home/u/.claude/projects/-p/memory/"
MANIFEST = "- [user] user_role.md (2026-03-01T10:00:00.000Z): Backend lead on the payments team"


def check_snapshot(name, text):
    path = SNAPSHOTS / name
    if os.environ.get("MEMDIR_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def headings(text):
    return [line for line in text.splitlines() if line.startswith("## ")]


def test_the_private_prompt_has_every_part_in_order():
    text = build_extraction_prompt(ExtractionPromptConfig(memory_dir=MEM), manifest=MANIFEST, message_count=6)
    assert text.startswith("You are the memory extraction agent.")
    assert headings(text) == [
        "## Existing memory files",
        "## Types of memory",
        "## What NOT to save in memory",
        "## How to save memories",
    ]
    assert "~6 messages" in text and f"`{MEM}`" in text and MANIFEST in text
    assert "at most 5 turns" in text and "no shell" in text
    assert "remembered, save it now" in text and "Step 2" in text
    assert "team memory" not in text
    assert "Edit that memory so it says what is true now" in text and "`expires: YYYY-MM-DD`" in text
    assert "[[name]]" not in text  # releases before 2.1.330 are not asked for links
    check_snapshot("extract_prompt_auto.md", text)


def test_the_team_prompt_adds_scopes_and_the_no_secrets_rule():
    cfg = ExtractionPromptConfig(memory_dir=MEM, team_dir=MEM + "team/")
    text = build_extraction_prompt(cfg, manifest=MANIFEST, message_count=3)
    assert headings(text)[:3] == ["## Existing memory files", "## Memory scope", "## Types of memory"]
    assert "<scope>" in text and "team memory above all" in text and f"`{MEM}team/`" in text
    check_snapshot("extract_prompt_team.md", text)


def test_an_empty_store_drops_the_manifest_section_and_skip_index_drops_the_index_step():
    cfg = ExtractionPromptConfig(memory_dir=MEM, skip_index=True)
    text = build_extraction_prompt(cfg, manifest="", message_count=2)
    assert "## Existing memory files" not in text
    assert "Step 2" not in text and "## How to save memories" in text


def test_the_user_message_holds_the_rendered_conversation_and_the_date():
    messages = [user("u1", "we deploy on Fridays"), assistant("a1", "Noted.", ("Bash", {"command": "make"}))]
    text = build_conversation_message(messages, message_count=2, today="2026-03-10")
    assert text.startswith("Today's date is 2026-03-10.")
    assert "<user>\nwe deploy on Fridays\n</user>" in text and '[tool call Bash: {"command": "make"}]' in text
    check_snapshot("extract_user_message.md", text)


def test_for_2_1_330_the_extraction_prompt_puts_the_type_under_metadata():
    cfg = ExtractionPromptConfig(memory_dir=MEM, nested_frontmatter=True, links=True)
    text = build_extraction_prompt(cfg, manifest=MANIFEST, message_count=6)
    check_snapshot("extract_prompt_auto_2_1_330.md", text)
    assert "`[[name]]`" in text and "a link to a memory that has not been written yet is fine" in text
    assert "`expires: YYYY-MM-DD` to that memory's frontmatter (inside `metadata:`, beside `type`)" in text
    assert "metadata:\n  type: {{user, feedback, project or reference}}\n---" in text
    assert "\ntype: {{" not in text
