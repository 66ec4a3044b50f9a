"""The rough edges a newcomer hits on the first day: names without ``.md`` and titles, "did you
mean", the description limit, ``add --team``, print commands that create nothing, ``dream`` without
a model, ``edit`` stamping ``modified:``, the help example and plurals."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memdir.cli import cli


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("MEMDIR_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)

    def invoke(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(cli, ["--memory-dir", str(tmp_path / "memory"), *args], input=input)

    return invoke


def _add(run, name: str = "Integration tests", description: str = "Integration tests hit a real database") -> Result:
    return run("add", "--type", "feedback", "--name", name, "--description", description, "--file",
               "feedback_integration_tests.md")  # fmt: skip


def test_show_rm_mv_and_edit_take_a_name_without_md_or_the_title(run, tmp_path: Path, monkeypatch):
    assert _add(run).exit_code == 0
    for given in ("feedback_integration_tests", "Integration tests", "integration TESTS"):
        shown = run("show", given)
        assert shown.exit_code == 0 and "hit a real database" in shown.output, shown.output
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\np = sys.argv[1]\nopen(p, 'a').write('More.\\n')\n", encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    assert run("edit", "Integration tests").exit_code == 0
    moved = run("mv", "feedback_integration_tests", "feedback_db_tests.md")
    assert moved.exit_code == 0, moved.output
    removed = run("rm", "Integration tests")
    assert removed.exit_code == 0 and "deleted feedback_db_tests.md" in removed.output


def test_a_near_miss_gets_a_did_you_mean(run):
    assert _add(run).exit_code == 0
    missed = run("show", "feedback_integration_test")
    assert missed.exit_code != 0 and "did you mean 'feedback_integration_tests'" in missed.output
    assert "did you mean 'list'?" in run("lst").output.lower()
    assert "did you mean 'feedback'?" in run("list", "--type", "feedbak").output


def test_a_description_longer_than_doctor_accepts_is_warned_about_where_it_is_written(run):
    added = _add(run, description="x " * 300)
    assert added.exit_code == 0 and "long-description" in added.stderr and "200" in added.stderr
    assert "long-description" not in _add(run, name="Short", description="short").stderr


def test_add_team_saves_a_team_memory_with_its_index_line(run, tmp_path: Path):
    added = run("add", "--team", "--type", "project", "--name", "Deploys", "--description", "Deploys on Tuesdays")
    assert added.exit_code == 0, added.output
    team = tmp_path / "memory" / "team"
    assert (team / "project_deploys.md").exists()
    assert "(project_deploys.md)" in (team / "MEMORY.md").read_text("utf-8")


def test_agent_prompt_prints_and_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    result = CliRunner().invoke(
        cli, ["--project", str(project), "agent", "prompt", "--agent-type", "reviewer", "--scope", "project"]
    )
    assert result.exit_code == 0 and "MEMORY.md" in result.output
    assert list(project.iterdir()) == []


def test_dream_without_a_model_says_so_and_exits_1(run):
    result = run("dream")
    assert result.exit_code == 1 and "no model is configured" in result.output


def test_edit_stamps_modified_as_a_save_does_when_the_release_stamps(run, tmp_path: Path, monkeypatch):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"memdir": {"claudeCodeVersion": "2.1.330"}}))
    assert _add(run).exit_code == 0
    path = tmp_path / "memory" / "feedback_integration_tests.md"
    before = path.read_text("utf-8")
    path.write_text(before.replace("modified: ", "modified: 2000-01-01T00:00:00.000Z #"), encoding="utf-8")
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nopen(sys.argv[1], 'a').write('More.\\n')\n", encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    assert run("edit", "feedback_integration_tests.md").exit_code == 0
    after = path.read_text("utf-8")
    assert "modified:" in after and "2000-01-01" not in after and "More." in after


def test_the_add_help_example_uses_printf_and_counts_speak_in_the_singular(run):
    assert "printf 'Never mock the DB.\\n" in run("add", "--help").output
    assert _add(run).exit_code == 0
    os.environ.setdefault("COLUMNS", "120")
    listed = run("list")
    assert "1 memories" not in listed.output


def test_doctor_says_why_the_fix_cannot_list_a_memory(run, tmp_path: Path):
    assert _add(run).exit_code == 0
    (tmp_path / "memory" / "project_broken.md").write_text("---\nname: Broken\ntype: project\n---\n\nbody\n")
    fixed = run("doctor", "--fix")
    expected = "project_broken.md: [index-missing] is not listed in MEMORY.md; --fix cannot add its line until"
    assert expected in fixed.output
    assert "has a name and a description" in fixed.output


def test_restore_and_merge_leave_the_personal_index_listing_exactly_the_memories_present(run, tmp_path: Path):
    from memdir.model.index import parse_entries

    memory = tmp_path / "memory"

    def listed() -> list[str]:
        return sorted(entry.file for _, entry in parse_entries((memory / "MEMORY.md").read_text("utf-8")))

    def present() -> list[str]:
        return sorted(p.name for p in memory.glob("*.md") if p.name != "MEMORY.md")

    assert run("add", "--type", "project", "--name", "Deploys", "--description", "Tuesdays").exit_code == 0
    assert run("add", "--type", "project", "--name", "Release", "--description", "Fridays at noon").exit_code == 0
    assert run("rm", "project_deploys.md").exit_code == 0
    assert run("restore", "project_deploys.md", "--version", "1").exit_code == 0
    assert listed() == present() == ["project_deploys.md", "project_release.md"]
    merged = run("merge", "Release", "project_deploys")  # a title and a name without .md
    assert merged.exit_code == 0, merged.output
    assert listed() == present()
