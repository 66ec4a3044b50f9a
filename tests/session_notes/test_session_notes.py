import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memdir.model.text import utf16_len
from memdir.session_notes.compact import build_compact_summary
from memdir.session_notes.notes import (
    TRUNCATION_MARKER,
    analyze_section_sizes,
    build_update_prompt,
    is_notes_empty,
    section_reminders,
    structure_check,
    structure_lines,
    truncate_for_compact,
)
from memdir.session_notes.paths import load_session_prompt, load_session_template
from memdir.templates import substitute_variables

SECTIONS = [
    "# Session Title",
    "# Current State",
    "# Task specification",
    "# Files and Functions",
    "# Workflow",
    "# Errors & Corrections",
    "# Codebase and System Documentation",
    "# Learnings",
    "# Key results",
    "# Worklog",
]


def test_substitution_is_one_literal_pass():
    template = "A {{notesPath}} B {{currentNotes}} C {{unknown}} {{ notesPath }}"
    values = {"notesPath": "/p/summary.md", "currentNotes": "has {{notesPath}} and $1 $&"}
    assert substitute_variables(template, values) == (
        "A /p/summary.md B has {{notesPath}} and $1 $& C {{unknown}} {{ notesPath }}"
    )


def test_the_template_has_the_ten_sections_each_with_one_italic_line(tmp_path):
    template = load_session_template(str(tmp_path))
    assert template.startswith("\n# Session Title\n")
    lines = template.split("\n")
    headers = [line for line in lines if line.startswith("# ")]
    assert headers == SECTIONS
    for header in headers:
        description = lines[lines.index(header) + 1]
        assert description.startswith("_") and description.endswith("_")
    assert structure_lines(template) == [x for h in headers for x in (h, lines[lines.index(h) + 1])]


def test_custom_template_and_prompt_come_from_the_config_home(tmp_path):
    config = tmp_path / "session-memory" / "config"
    config.mkdir(parents=True)
    (config / "template.md").write_text("# Only\n_one_\n", encoding="utf-8")
    (config / "prompt.md").write_text("Edit {{notesPath}}", encoding="utf-8")
    assert load_session_template(str(tmp_path)) == "# Only\n_one_\n"
    assert load_session_prompt(str(tmp_path)) == "Edit {{notesPath}}"


def test_the_default_prompt_places_the_notes_in_tags_and_names_the_file(tmp_path):
    prompt = build_update_prompt(load_session_prompt(str(tmp_path)), "# T\n_d_\nbody", "/n/summary.md")
    assert "<current_notes_content>\n# T\n_d_\nbody\n</current_notes_content>" in prompt
    assert "/n/summary.md" in prompt and "Edit" in prompt and "Current State" in prompt


def test_section_sizes_use_trimmed_bodies_and_skip_empty_headers():
    notes = "intro\n# A\n_d_\n" + "x" * 40 + "\n\n# B\n# C\n\n"
    assert analyze_section_sizes(notes) == {"# A": 11, "# C": 0}


def test_no_reminder_while_the_notes_fit():
    assert section_reminders({"# A": 2000}, 12000) == ""


def test_oversized_sections_are_listed_largest_first():
    text = section_reminders({"# A": 2001, "# B": 5000, "# C": 10}, 7011)
    assert text == (
        "\n\nIMPORTANT: The following sections exceed the per-section limit and MUST be condensed:\n"
        '- "# B" is ~5000 tokens (limit: 2000)\n'
        '- "# A" is ~2001 tokens (limit: 2000)'
    )


def test_over_the_total_budget_the_prompt_demands_condensing():
    text = section_reminders({"# A": 2500}, 12001)
    assert text.startswith("\n\nCRITICAL:")
    assert "~12001 tokens" in text and "exceeds the maximum of 12000 tokens" in text
    assert text.endswith('Oversized sections to condense:\n- "# A" is ~2500 tokens (limit: 2000)')


def test_the_prompt_gets_reminders_after_substitution():
    notes = "# Big\n" + "y" * 8100
    prompt = build_update_prompt("N={{currentNotes}}", notes, "/p")
    assert prompt == "N=" + notes + section_reminders({"# Big": 2025}, 2027)


def test_truncation_keeps_79_lines_of_an_oversized_section():
    notes = "# A\n_desc_\n" + "\n".join(["a" * 99] * 100) + "\n# B\n_d_\nshort"
    truncated = truncate_for_compact(notes)
    assert truncated.was_truncated
    lines = truncated.text.split("\n")
    assert lines[:2] == ["# A", "_desc_"]
    assert lines[2:81] == ["a" * 99] * 79
    assert lines[81:83] == ["", "[... section truncated for length ...]"]
    assert lines[83:] == ["# B", "_d_", "short"]


def test_notes_within_the_limit_pass_through_unchanged():
    notes = "preamble\n# A\n_d_\n" + "b" * 7996 + "\n# B\nx"  # a body of exactly 8000 characters
    truncated = truncate_for_compact(notes)
    assert truncated.text == notes and not truncated.was_truncated
    assert TRUNCATION_MARKER.startswith("\n")


def test_notes_equal_to_the_template_are_empty():
    assert is_notes_empty("\n# A\n_d_\n\n", "# A\n_d_")
    assert not is_notes_empty("# A\n_d_\nwork", "# A\n_d_")


def test_edits_below_the_fixed_lines_are_allowed():
    before = "\n# A\n_what A is_\n\n# B\n_what B is_\n"
    after = "\n# A\n_what A is_\nnew fact\n\n# B\n_what B is_\n- item\n"
    assert structure_check("/n/summary.md", before, after) is None


def test_edits_to_headers_or_descriptions_are_refused():
    before = "# A\n_what A is_\nx\n# B\n_what B is_\n"
    assert "headers" in structure_check("/n/summary.md", before, before.replace("# A", "# A2"))
    assert "headers" in structure_check("/n/summary.md", before, before.replace("_what B is_", "_B_"))
    assert "removed" in structure_check("/n/summary.md", before, before.replace("# B\n_what B is_\n", ""))
    assert "added" in structure_check("/n/summary.md", before, before + "# C\n")


SNAPSHOTS = Path(__file__).parent / "snapshots"


def check_snapshot(name, text):
    path = SNAPSHOTS / name
    if os.environ.get("MEMDIR_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_the_update_prompt_snapshot(tmp_path):
    home = str(tmp_path)
    notes = load_session_template(home).replace("# Worklog\n", "# Worklog\n" + "- step\n" * 4000, 1)
    check_snapshot("session_update_prompt.md", build_update_prompt(load_session_prompt(home), notes, "/n/summary.md"))


def test_the_compact_summary_snapshot():
    text, truncated = build_compact_summary(
        "# Current State\n_now_\nPorting the parser.", notes_path="/n/summary.md", transcript_path="/t/s.jsonl"
    )
    assert not truncated
    check_snapshot("session_compact_summary.md", text)


section_lines = st.lists(st.text(alphabet="ab _#\u00e9\U0001f600", max_size=300), max_size=60)


@given(st.lists(st.tuples(st.text(alphabet="abc", max_size=5), section_lines), max_size=5))
def test_truncated_sections_fit_their_budget_and_short_ones_are_untouched(sections):
    notes = "\n".join(f"# {title}\n" + "\n".join(lines) for title, lines in sections)
    truncated = truncate_for_compact(notes, max_section_tokens=100)
    if not truncated.was_truncated:
        assert truncated.text == notes
    for body in truncated.text.split("\n# ")[1:]:
        kept = body.split("\n")[1:]
        if kept[-1:] == [TRUNCATION_MARKER.lstrip("\n")]:
            assert sum(utf16_len(line) + 1 for line in kept[:-2]) <= 400
