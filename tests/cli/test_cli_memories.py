import json

import pytest
from click.testing import CliRunner

from memdir.cli import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    mem = tmp_path / "mem"

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], input=input, catch_exceptions=False)

    invoke.mem = mem
    return invoke


def test_add_prints_the_path_and_list_shows_it(run):
    result = run(
        "add",
        "--type",
        "feedback",
        "--name",
        "Real DB",
        "--description",
        "Tests hit a real DB",
        "--body",
        "Never mock it.",
    )
    assert result.exit_code == 0
    assert result.stdout.strip() == str(run.mem / "feedback_real_db.md")
    assert result.stderr == ""
    listed = json.loads(run("list", "--json").stdout)
    assert listed[0]["file"] == "feedback_real_db.md"
    assert listed[0]["type"] == "feedback"
    assert set(listed[0]) == {"file", "path", "type", "name", "description", "mtime", "expires", "expired"}


def test_add_reads_the_body_from_stdin(run):
    run(
        "add",
        "--type",
        "user",
        "--name",
        "Role",
        "--description",
        "Backend lead",
        "--body",
        "-",
        input="Leads payments.\n",
    )
    assert "Leads payments." in run("show", "user_role.md").stdout


def test_add_refuses_to_overwrite_without_force(run):
    args = ("add", "--type", "user", "--name", "Role", "--description", "Backend lead")
    assert run(*args).exit_code == 0
    second = run(*args)
    assert second.exit_code == 1
    assert second.stderr == (
        "memdir: user_role.md already exists; add --force to replace it, or --file NAME to save under another name\n"
    )
    assert run(*args, "--force").exit_code == 0
    other = run(*args, "--file", "x.md")
    assert other.exit_code == 1  # another file name does not make it another memory
    assert other.stderr == (
        "memdir: not saved: user_role.md already says this nearly word for word; change it with "
        "--update user_role.md, or add --force to save a second copy\n"
    )
    assert not (run.mem / "x.md").exists()


def test_a_reworded_duplicate_is_saved_and_named_with_its_date_and_how_to_update_it(run):
    first = ("add", "--type", "feedback", "--name", "Real database in tests")
    description = "Integration tests must hit a real database, never mocks"
    assert run(*first, "--description", description).exit_code == 0
    for number in range(6):
        topic = ("Deploy day", "Commit style", "Node version", "Grafana board", "Flaky suite", "User role")[number]
        assert run("add", "--type", "project", "--name", topic, "--description", f"{topic} is noted").exit_code == 0
    again = run(
        "add",
        "--type",
        "feedback",
        "--name",
        "Integration tests use a real DB",
        "--description",
        "Integration tests must use a real database and never mock it",
    )
    assert again.exit_code == 0
    assert (run.mem / "feedback_integration_tests_use_a_real_db.md").exists()
    lines = again.stderr.splitlines()
    assert lines[0] == "memdir: these memories may already say it:"
    assert lines[1] == f"  feedback_real_database_in_tests.md (saved today): {description}"
    assert "memdir add --update feedback_real_database_in_tests.md" in lines[-1]
    assert (
        "memdir relate feedback_integration_tests_use_a_real_db.md --replaces feedback_real_database_in_tests.md"
        in (lines[-1])
    )


def test_numbered_topics_are_different_memories(run):
    for number in (1, 2, 12):
        done = run(
            "add",
            "--type",
            "project",
            "--name",
            f"Topic {number}",
            "--description",
            f"Concurrent topic number {number}",
        )
        assert done.exit_code == 0, done.stderr
    assert {p.name for p in run.mem.glob("project_topic_*.md")} == {
        "project_topic_1.md",
        "project_topic_2.md",
        "project_topic_12.md",
    }


def test_add_replaces_records_the_relation_in_the_new_memory(run):
    run("add", "--type", "project", "--name", "On call", "--description", "Dana is on call for atlas")
    done = run(
        "add",
        "--type",
        "project",
        "--name",
        "Pager handover",
        "--description",
        "Kenji has the atlas pager",
        "--replaces",
        "On call",
    )
    assert done.exit_code == 0, done.stderr
    assert done.stderr == ""  # the writer decided: nothing more to suggest
    text = (run.mem / "project_pager_handover.md").read_text(encoding="utf-8")
    assert "\nreplaces: [project_on_call.md]\n" in text


def test_add_update_replaces_a_memory_s_content_and_keeps_its_file_name(run):
    run("add", "--type", "project", "--name", "Checkout latency", "--description", "Checkout p95 is 950 ms")
    result = run(
        "add",
        "--type",
        "project",
        "--name",
        "Checkout latency",
        "--description",
        "After the cache, checkout p95 is 140 ms",
        "--body",
        "Was 950 ms.",
        "--update",
        "project_checkout_latency.md",
    )
    assert result.exit_code == 0, result.stderr
    text = (run.mem / "project_checkout_latency.md").read_text(encoding="utf-8")
    assert "140 ms" in text and "description: Checkout p95 is 950 ms" not in text
    assert sorted(p.name for p in run.mem.glob("*.md")) == ["MEMORY.md", "project_checkout_latency.md"]
    assert "After the cache" in (run.mem / "MEMORY.md").read_text(encoding="utf-8")
    missing = run("add", "--type", "user", "--name", "x", "--description", "y", "--update", "nope.md")
    assert missing.exit_code == 1 and "no memory file 'nope.md'" in missing.stderr


def test_rm_removes_the_file_and_its_index_line(run):
    run("add", "--type", "user", "--name", "Role", "--description", "Backend lead")
    result = run("rm", "user_role.md")
    assert "deleted user_role.md" in result.stdout
    assert "user_role.md" not in (run.mem / "MEMORY.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["../x.md", "/etc/passwd", "a\\b.md"])
def test_hostile_names_give_one_clear_line_and_exit_1(run, name):
    result = run("add", "--type", "user", "--name", "x", "--description", "y", "--file", name)
    assert result.exit_code == 1
    assert result.stderr.startswith("memdir: refusing path ")
    assert len(result.stderr.strip().splitlines()) == 1


def test_show_of_a_missing_file_is_a_clear_error(run):
    result = run("show", "nope.md")
    assert result.exit_code == 1 and "no memory file" in result.stderr


def test_every_command_has_an_example_in_its_help(run):
    for command in ["path", "init", "add", "list", "show", "rm", "prompt", "recall", "doctor"]:
        assert "Examples:" in CliRunner().invoke(cli, [command, "--help"]).stdout, command
