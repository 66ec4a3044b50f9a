import json

import pytest
from click.testing import CliRunner

from memdir.cli import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    project = tmp_path / "proj"
    project.mkdir()

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, ["--project", str(project), *args], input=input, catch_exceptions=False)

    invoke.tmp = tmp_path
    return invoke


def test_path_resolves_to_the_claude_code_directory(run):
    result = run("path")
    assert result.stdout.strip().endswith("/memory/")
    assert str(run.tmp / "home" / "projects") in result.stdout
    info = json.loads(run("path", "--json").stdout)
    assert info["enabled"] is True and info["entrypoint"].endswith("/memory/MEMORY.md")


def test_prompt_prints_the_section_and_the_index(run):
    run("add", "--type", "user", "--name", "Role", "--description", "Backend lead")
    data = json.loads(run("prompt", "--json").stdout)
    assert data["system"].startswith("# auto memory")
    assert "[Role](user_role.md)" in data["user_context"]


def test_prompt_reports_disabled_memory(run, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    result = run("prompt")
    assert result.exit_code == 1 and "disabled" in result.stderr


def test_recall_json_has_the_documented_shape(run):
    run(
        "add",
        "--type",
        "feedback",
        "--name",
        "Real DB",
        "--description",
        "Integration tests hit a real database",
    )
    data = json.loads(run("recall", "how do the integration tests work?", "--json").stdout)
    assert data["selector"] == "lexical"
    (memory,) = data["memories"]
    assert set(memory) == {"file", "path", "header", "content", "truncated"}
    assert memory["file"] == "feedback_real_db.md"
    assert data["reminders"][0].startswith("<system-reminder>")


def test_recall_of_a_single_word_is_skipped(run):
    result = run("recall", "deploy")
    assert "single-word" in result.stderr


def test_doctor_lists_problems_and_fix_repairs_the_index(run):
    run("add", "--type", "user", "--name", "Role", "--description", "Backend lead")
    mem = run.tmp / "home" / "projects"
    memory_dir = next(mem.glob("*/memory"))
    (memory_dir / "orphan.md").write_text(
        "---\nname: Orphan\ndescription: not indexed\ntype: user\n---\nx", encoding="utf-8"
    )
    (memory_dir / "broken.md").write_bytes(b"---\nname: x\n---\n\xff")
    with open(memory_dir / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("- [Gone](gone.md) — was deleted by hand\n")
    result = run("doctor", "--json")
    assert result.exit_code == 1
    rules = {(p["file"], p["rule"]) for p in json.loads(result.stdout)["problems"]}
    assert ("orphan.md", "index-missing") in rules
    assert ("MEMORY.md", "index-dangling") in rules
    assert ("broken.md", "encoding") in rules
    fixed = json.loads(run("doctor", "--fix", "--json").stdout)
    assert fixed["fixed"] == ["MEMORY.md"]
    remaining = {(p["file"], p["rule"]) for p in fixed["problems"]}
    assert ("orphan.md", "index-missing") not in remaining and (
        "MEMORY.md",
        "index-dangling",
    ) not in remaining
    index = (memory_dir / "MEMORY.md").read_text(encoding="utf-8")
    assert "(orphan.md)" in index and "gone.md" not in index and "(user_role.md)" in index


def test_doctor_says_whether_claude_code_loads_the_index_whole_truncated_or_not_at_all(run, monkeypatch):
    assert "Claude Code does not load" in run("doctor").stdout and "there is no index yet" in run("doctor").stdout
    run("add", "--type", "user", "--name", "Role", "--description", "Backend lead")
    whole = run("doctor")
    assert whole.exit_code == 0 and "MEMORY.md whole (1 line, " in whole.stdout
    index = json.loads(run("path", "--json").stdout)["entrypoint"]
    with open(index, "a", encoding="utf-8") as handle:
        handle.write("".join(f"- [Note {n}](user_note_{n}.md) — note {n}\n" for n in range(203)))
    cut = run("doctor")
    assert cut.exit_code == 1
    assert "MEMORY.md truncated, up to line 200 (the 200-line limit): 4 memories listed after the cut" in cut.stdout
    assert "  past the cut, line 201: user_note_199.md (Note 199)" in cut.stdout
    data = json.loads(run("doctor", "--json").stdout)["claude_code"]
    assert (data["status"], data["cut_by"], data["last_line"], data["lines"]) == ("truncated", ["lines"], 200, 204)
    assert [d["file"] for d in data["dropped"]] == [f"user_note_{n}.md" for n in range(199, 203)]
    other = run("--memory-dir", str(run.tmp / "elsewhere"), "doctor", "--json")
    assert "not this project's memory directory" in json.loads(other.stdout)["claude_code"]["reason"]
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    off = json.loads(run("doctor", "--json").stdout)["claude_code"]
    assert off["status"] == "not loaded" and off["reason"].startswith("auto memory is off")


def test_doctor_names_each_file_once_per_line(run):
    run("add", "--type", "user", "--name", "Role", "--description", "Backend lead")
    memory = run("path").stdout.strip()
    with open(f"{memory}nofront.md", "w", encoding="utf-8") as handle:
        handle.write("just text\n")
    out = run("doctor").stdout
    rows = [line for line in out.splitlines() if line.startswith("nofront.md")]
    assert len(rows) == 2 and all(row.count("nofront.md") == 1 for row in rows), rows
    assert "nofront.md:1: [no-frontmatter] has no frontmatter" in rows[0]
