"""``memdir list`` filters, and its plain (piped) output."""

import json
import os
import time

import pytest
from click.testing import CliRunner

from memdir.cli import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    mem = tmp_path / "mem"

    def invoke(*args):
        return CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], catch_exceptions=False)

    for kind, name, description, age_days in [
        ("user", "Role", "Backend lead on payments", 0),
        ("feedback", "Real DB", "Integration tests hit a real PostgreSQL database", 3),
        ("project", "Freeze", "Mobile release freeze from March 5", 30),
    ]:
        assert invoke("add", "--type", kind, "--name", name, "--description", description).exit_code == 0
        path = next(mem.glob(f"{kind}_*.md"))
        stamp = time.time() - age_days * 86_400
        os.utime(path, (stamp, stamp))
    invoke.mem = mem
    return invoke


def files(result):
    assert result.exit_code == 0, result.stderr
    return [m["file"] for m in json.loads(result.stdout)]


def test_list_filters_by_type(run):
    assert files(run("list", "--type", "feedback", "--json")) == ["feedback_real_db.md"]
    assert files(run("list", "--type", "user", "--type", "project", "--json")) == ["user_role.md", "project_freeze.md"]


def test_list_filters_by_a_span_or_a_date(run):
    assert files(run("list", "--since", "7d", "--json")) == ["user_role.md", "feedback_real_db.md"]
    assert files(run("list", "--since", "36h", "--json")) == ["user_role.md"]
    old = time.strftime("%Y-%m-%d", time.localtime(time.time() - 60 * 86_400))
    assert len(files(run("list", "--since", old, "--json"))) == 3


def test_list_greps_file_name_and_description_case_insensitively(run):
    assert files(run("list", "--grep", "postgres", "--json")) == ["feedback_real_db.md"]
    assert files(run("list", "--grep", "ROLE|freeze", "--json")) == ["user_role.md", "project_freeze.md"]


def test_bad_filter_values_are_usage_errors(run):
    for args in (("--since", "last tuesday"), ("--grep", "(unclosed")):
        result = run("list", *args)
        assert result.exit_code == 2 and result.stderr.startswith("memdir: Invalid value for")
        assert result.stderr.count("\n") == 1


def test_piped_list_prints_one_plain_line_per_memory(run):
    result = run("list")
    assert result.stdout.splitlines() == [
        "[user] user_role.md: Backend lead on payments",
        "[feedback] feedback_real_db.md: Integration tests hit a real PostgreSQL database",
        "[project] project_freeze.md: Mobile release freeze from March 5",
    ]


def test_a_multi_line_description_is_listed_on_one_line(run):
    (run.mem / "user_notes.md").write_text(
        "---\nname: Notes\ndescription: |\n  first line\n  second line\ntype: user\n---\n", encoding="utf-8"
    )
    assert "[user] user_notes.md: first line second line" in run("list").stdout.splitlines()


def test_no_match_says_so_on_stderr(run):
    result = run("list", "--grep", "kubernetes")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.startswith("memdir") is False and "no matching memories" in result.stderr
