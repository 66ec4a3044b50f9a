"""What a new user tries first with the history: the names `show` takes, a deleted memory, undo's words."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from memdir.cli import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    for name in ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "MEMDIR_MODEL", "MEMDIR_DAILY_LOG"):
        monkeypatch.delenv(name, raising=False)
    mem = tmp_path / "mem"

    def invoke(*args, code=0):
        done = CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], catch_exceptions=False)
        assert done.exit_code == code, done.output
        return done

    invoke.mem = mem
    return invoke


def deploys(run):
    run("add", "--type", "project", "--name", "Deploys", "--description", "Deploys happen on Tuesdays")


@pytest.mark.parametrize("name", ["project_deploys.md", "project_deploys", "Deploys", "deploys"])
def test_history_diff_and_show_version_take_every_name_show_and_rm_take(run, name):
    deploys(run)
    assert [row["file"] for row in json.loads(run("history", name, "--json").stdout)] == ["project_deploys.md"]
    assert "+description: Deploys happen on Tuesdays" in run("diff", name).stdout
    assert "Deploys happen on Tuesdays" in run("show", name, "--version", "1").stdout


@pytest.mark.parametrize("name", ["project_deploys", "Deploys"])
def test_a_deleted_memory_is_found_by_its_name_and_title_and_restore_brings_back_its_last_version(run, name):
    deploys(run)
    removed = run("rm", "project_deploys")
    assert "bring it back with: memdir restore project_deploys.md" in removed.stdout
    history = json.loads(run("history", name, "--json").stdout)
    assert [row["change"] for row in history] == ["delete", "create"]
    restored = run("restore", name)
    assert restored.stdout == "restored project_deploys.md as of version 1 (now version 3)\n"
    assert "[Deploys](project_deploys.md)" in (run.mem / "MEMORY.md").read_text(encoding="utf-8")
    again = run("restore", name, code=1)
    assert "project_deploys.md is not deleted: name the version to bring back" in again.stderr


def test_an_unknown_name_is_a_refusal_that_names_the_nearest_not_an_empty_history(run):
    deploys(run)
    missed = run("history", "project_deploy", code=1)
    assert missed.stderr.startswith("memdir: no memory 'project_deploy'") and "did you mean" in missed.stderr


def test_history_shows_restore_and_undo_as_their_own_changes_and_undoing_an_add_says_removed(run):
    deploys(run)
    run("rm", "project_deploys.md")
    run("restore", "project_deploys.md")
    undone = run("undo", "--last")
    assert "removed project_deploys.md (not there before that run)" in undone.stdout and "put back" not in undone.stdout
    changes = [row["change"] for row in json.loads(run("history", "project_deploys.md", "--json").stdout)]
    assert changes == ["undo", "restore", "delete", "create"]
    assert "v4  undo (removed)" in run("history", "project_deploys.md").stdout
    run("add", "--type", "user", "--name", "Role", "--description", "Leads the payments team")
    assert "removed user_role.md (not there before that run)" in run("undo", "--last").stdout
    run("restore", "user_role.md")
    assert "undid run" in run("undo", "--last").stdout


def test_a_mistyped_command_suggests_the_one_meant_first(run):
    import importlib

    from memdir.cli.main import COMMAND_MODULES

    for module in set(COMMAND_MODULES.values()):  # as in a process that has loaded every command
        importlib.import_module(f"memdir.cli.{module}")
    missed = run("recal", "deploys", code=2)
    assert missed.stderr.startswith("memdir: No such command 'recal'; did you mean 'recall'"), missed.stderr
    assert missed.stderr.count("did you mean") + missed.stderr.count("Did you mean") == 1


def test_counts_of_one_are_singular(run):
    from memdir.model.text import counted

    assert (counted(1, "memory", "memories"), counted(2, "memory", "memories"), counted(0, "file")) == (
        "1 memory",
        "2 memories",
        "0 files",
    )
    deploys(run)
    (run.mem / "project_deploys.md").write_text(
        "---\nname: Deploys\ndescription: On Wednesdays now\ntype: project\n---\n", encoding="utf-8"
    )
    assert run("history", "sync").stdout == "recorded 1 outside change\n"


def test_a_description_add_accepts_is_a_doctor_note_not_a_problem(run):
    long = "Deploys go out on Tuesdays, " + "and here is far more detail than an index line should hold " * 4
    added = run("add", "--type", "project", "--name", "Deploys", "--description", long)
    assert "long-description" in added.stderr
    checked = run("doctor")  # exit 0: what every write path accepts, doctor accepts
    assert "note: project_deploys.md: [long-description]" in checked.stdout
    assert not [p for p in json.loads(run("doctor", "--json").stdout)["problems"]]
