"""What a person meets first: error lines, exit codes, daily logs, long names, the extraction index."""

import json
import os

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.doctor.checks import check_memory_dir
from memdir.store.directory import MemoryDir


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    for name in ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "MEMDIR_MODEL", "MEMDIR_DAILY_LOG"):
        monkeypatch.delenv(name, raising=False)
    mem = tmp_path / "mem"

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], input=input, catch_exceptions=False)

    invoke.mem = mem
    return invoke


def add(run, name="Role", *extra):
    return run("add", "--type", "user", "--name", name, "--description", f"About {name}", *extra)


def test_a_usage_error_is_one_memdir_line_with_exit_status_2(run):
    result = run("list", "--no-such-option")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "memdir: No such option '--no-such-option' (see 'memdir list --help')\n"


def test_a_missing_argument_is_a_usage_error_too(run):
    result = run("show")
    assert result.exit_code == 2
    assert result.stderr.startswith("memdir: Missing argument 'FILE'") and result.stderr.count("\n") == 1


def test_a_refusal_is_one_memdir_line_with_exit_status_1(run):
    result = run("show", "nope.md")
    assert result.exit_code == 1
    assert result.stderr.startswith("memdir: no memory file 'nope.md'") and result.stderr.count("\n") == 1


def test_add_prints_its_success_line_on_stdout(run):
    result = add(run)
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == f"{run.mem / 'user_role.md'}\n"  # piped: the path alone, for scripts


def test_the_duplicate_add_error_names_the_force_flag(run):
    add(run)
    result = add(run)
    assert result.exit_code == 1
    assert "--force" in result.stderr and "pass force" not in result.stderr


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("a" * 256 + ".md", "name-too-long"),
        ("é" * 128 + ".md", "name-too-long"),
        ("/".join(["d" * 200] * 21) + "/x.md", "path-too-long"),
    ],
)
def test_a_name_the_system_cannot_hold_is_a_named_refusal_in_show_and_add(run, name, rule):
    add(run)
    for args in (("show", name), ("add", "--type", "user", "--name", "x", "--description", "y", "--file", name)):
        result = run(*args)
        assert result.exit_code == 1, args
        assert result.stderr.startswith("memdir: refusing path ") and f"(rule: {rule})" in result.stderr
        assert result.stderr.count("\n") == 1 and len(result.stderr) < 400


def test_a_daily_log_is_neither_listed_nor_recalled_nor_a_doctor_problem(run):
    add(run, "Squash merges")
    logged = run("log", "user prefers squash merges; never rebase shared branches")
    assert logged.exit_code == 0 and "/logs/" in logged.stdout
    listed = json.loads(run("list", "--json").stdout)
    assert [m["file"] for m in listed] == ["user_squash_merges.md"]
    recalled = json.loads(
        run("recall", "squash merges rebase shared branches", "--selector", "lexical", "--json").stdout
    )
    assert all(not m["file"].startswith("logs/") for m in recalled["memories"])
    assert run("doctor").exit_code == 0
    assert run("doctor", "--fix").exit_code == 0


def test_a_log_that_is_not_utf8_is_still_reported(run):
    add(run)
    (run.mem / "logs" / "2026" / "01").mkdir(parents=True)
    (run.mem / "logs" / "2026" / "01" / "2026-01-02.md").write_bytes(b"- caf\xe9\n")
    result = run("doctor", "--json")
    problems = json.loads(result.stdout)["problems"]
    assert [(p["file"], p["rule"]) for p in problems] == [("logs/2026/01/2026-01-02.md", "encoding")]


def test_extraction_adds_the_index_line_the_model_forgot(run, tmp_path):
    transcript = tmp_path / "conversation.json"
    transcript.write_text(
        json.dumps([{"role": "user", "content": "use pnpm, never npm"}, {"role": "assistant", "content": "OK"}])
    )
    memory = "---\nname: pnpm\ndescription: The repository uses pnpm, never npm\ntype: feedback\n---\n\nUse pnpm.\n"
    script = tmp_path / "script.json"
    write = {"name": "Write", "input": {"file_path": "feedback_pnpm.md", "content": memory}}
    script.write_text(json.dumps({"responses": [{"tool_calls": [write]}, {"text": "saved"}]}))
    result = run("extract", "--transcript", str(transcript), "--model", f"scripted:{script}")
    assert result.exit_code == 0, result.stderr
    index = (run.mem / "MEMORY.md").read_text(encoding="utf-8")
    assert index == "- [pnpm](feedback_pnpm.md) — The repository uses pnpm, never npm\n"
    assert run("doctor").exit_code == 0


def test_a_line_the_model_wrote_itself_is_kept_as_written(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    store.ensure()
    (tmp_path / "mem" / "user_a.md").write_text("---\nname: A\ndescription: a\ntype: user\n---\n", encoding="utf-8")
    (tmp_path / "mem" / "MEMORY.md").write_text("# Notes\n- [My title](user_a.md) — my words\n", encoding="utf-8")
    assert store.add_missing_index_lines(["user_a.md"]) == ()
    assert store.index_text() == "# Notes\n- [My title](user_a.md) — my words\n"


def test_a_stale_temp_file_is_reported_then_removed_by_the_next_save(run):
    add(run)
    stale = run.mem / ".user_role.md.tmp.999999999.1700000000000.0badcafe"
    stale.write_text("half a save", encoding="utf-8")
    os.utime(stale, (1_700_000_000, 1_700_000_000))
    report = check_memory_dir(MemoryDir(run.mem))
    assert [(p.file, p.rule) for p in report.problems] == [(stale.name, "stale-temp")]
    assert add(run, "Other").exit_code == 0
    assert not stale.exists()
    assert check_memory_dir(MemoryDir(run.mem)).ok


def test_doctor_fix_removes_a_stale_temp_file_and_leaves_a_live_one(run):
    add(run)
    stale = run.mem / ".user_role.md.tmp.999999999.1700000000000.0badcafe"
    stale.write_text("half a save", encoding="utf-8")
    os.utime(stale, (1_700_000_000, 1_700_000_000))
    live = run.mem / f".user_role.md.tmp.{os.getpid()}.1700000000000.0badcafe"
    live.write_text("a save in progress", encoding="utf-8")
    result = run("doctor", "--fix")
    assert result.exit_code == 0, result.stdout
    assert not stale.exists() and live.exists()


def test_doctor_fix_fills_the_index_up_to_what_claude_code_loads_and_reports_the_rest(run):
    run.mem.mkdir()
    for n in range(250):
        (run.mem / f"user_n{n:03}.md").write_text(f"---\nname: N{n}\ndescription: note {n}\ntype: user\n---\n")
    result = run("doctor", "--fix", "--json")
    assert result.exit_code == 1 and result.stderr == ""
    report = json.loads(result.stdout)
    rules = [p["rule"] for p in report["problems"]]
    assert rules.count("index-full") == 1 and rules.count("index-missing") == 50
    assert report["fixed"] == ["MEMORY.md"]
    assert len((run.mem / "MEMORY.md").read_text(encoding="utf-8").splitlines()) == 200
