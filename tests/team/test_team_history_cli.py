"""`memdir team log|show|restore`, `sync --json`, the mass-delete hold as the CLI reports it, and
20 concurrent `memdir team push` processes, against the real server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from team_helpers import REPO, TeamServer, write

from memdir.cli import cli
from memdir.model.index import parse_entries
from memdir.team.protocol import hash_content


@pytest.fixture
def run(team_server: TeamServer):
    options = ["--server", team_server.url, "--token", team_server.token, "--repo", REPO]

    def invoke(memory: Path, command: str, *args: str):
        argv = ["--memory-dir", str(memory), "team", command, *args, *options]
        return CliRunner().invoke(cli, argv, catch_exceptions=False)

    return invoke


def test_history_after_three_writes_then_a_restore_is_itself_in_the_history(run, tmp_path: Path):
    memory = tmp_path / "memory"
    for text in ("first\n", "second\n", "third\n"):
        write(memory / "team", "deploy.md", text)
        assert run(memory, "push").exit_code == 0
    log = json.loads(run(memory, "log", "deploy.md", "--json").stdout)
    assert [(row["key"], row["version"], row["deleted"]) for row in log] == [
        ("deploy.md", 3, False),
        ("deploy.md", 2, False),
        ("deploy.md", 1, False),
    ]
    assert log[0]["hash"] == hash_content("third\n") and log[0]["by"] == "" and log[0]["at"].endswith("Z")
    assert run(memory, "show", "deploy.md", "--version", "1").stdout == "first\n"
    restored = run(memory, "restore", "deploy.md", "--version", "1")
    assert restored.exit_code == 0 and "restored deploy.md to version 1 (now version 4)" in restored.stdout
    assert (memory / "team" / "deploy.md").read_text(encoding="utf-8") == "first\n"
    assert [row["version"] for row in json.loads(run(memory, "log", "--json").stdout)] == [4, 3, 2, 1]
    assert run(memory, "status", "--json").exit_code == 0
    assert json.loads(run(memory, "status", "--json").stdout)["would_push"] == []
    missing = run(memory, "show", "deploy.md", "--version", "9")
    assert missing.exit_code == 1 and "memdir team log deploy.md" in missing.stderr


def test_restore_keeps_an_unpushed_local_edit_as_a_conflict_copy(run, tmp_path: Path):
    memory = tmp_path / "memory"
    write(memory / "team", "deploy.md", "v1\n")
    run(memory, "push")
    write(memory / "team", "deploy.md", "v2\n")
    run(memory, "push")
    write(memory / "team", "deploy.md", "unpushed\n")
    restored = run(memory, "restore", "deploy.md", "--version", "1", "--json")
    kept_as = json.loads(restored.stdout)["kept_as"]
    assert (memory / "team" / kept_as).read_text(encoding="utf-8") == "unpushed\n"
    assert (memory / "team" / "deploy.md").read_text(encoding="utf-8") == "v1\n"


def test_sync_json_reports_counts_and_conflicts_and_a_mass_delete_is_held_with_the_flag_named(run, tmp_path: Path):
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for n in range(12):
        write(mine / "team", f"n{n:02}.md", f"{n}\n")
    run(mine, "sync")
    run(theirs, "sync")
    write(theirs / "team", "n00.md", "theirs\n")
    run(theirs, "sync")
    write(mine / "team", "n00.md", "mine\n")
    report = json.loads(run(mine, "sync", "--json").stdout)
    assert report["pulled"] == 1 and report["pushed"] == 1
    assert report["deleted_here"] == 0 and report["deleted_there"] == 0
    assert report["merged"] == [] and report["resolved"] == [] and report["ok"] is True
    [conflict] = report["conflicts"]
    assert conflict["key"] == "n00.md" and conflict["kept_as"].startswith("n00.conflict-")

    for path in (mine / "team").iterdir():
        path.unlink()
    held = run(mine, "push")
    assert held.exit_code == 1 and "--allow-mass-delete" in held.stderr and "nothing was deleted" in held.stderr
    allowed = run(mine, "push", "--allow-mass-delete")
    assert allowed.exit_code == 0 and "(0 new or changed, 13 deleted by you)" in allowed.stdout


def test_twenty_concurrent_cli_pushers_all_succeed_and_lose_nothing(team_server: TeamServer, tmp_path: Path):
    env = {**os.environ, "MEMDIR_TEAM_SERVER": team_server.url, "MEMDIR_TEAM_TOKEN": team_server.token}
    processes = []
    for n in range(20):
        memory = tmp_path / f"clone{n:02}"
        for j in range(3):
            write(memory / "team", f"clone{n:02}/note{j}.md", f"clone {n} note {j}\n")
        argv = [sys.executable, "-c", "from memdir.cli import main; main()", "--memory-dir", str(memory)]
        command = [*argv, "team", "push", "--repo", REPO, "--json"]
        processes.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outcomes = [process.communicate(timeout=300) for process in processes]
    assert [process.returncode for process in processes] == [0] * 20, [err for _out, err in outcomes]
    assert all(json.loads(out)["uploaded"] == 3 for out, _err in outcomes)
    stored = team_server.storage.get_repo(REPO)
    assert stored is not None and len(stored.entries) == 60
    assert all(
        stored.entries[f"clone{n:02}/note{j}.md"] == f"clone {n} note {j}\n" for n in range(20) for j in range(3)
    )


def test_twenty_concurrent_syncs_adding_one_memory_each_end_with_all_twenty_in_the_index(
    team_server: TeamServer, tmp_path: Path
):
    env = {**os.environ, "MEMDIR_TEAM_SERVER": team_server.url, "MEMDIR_TEAM_TOKEN": team_server.token}
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "home")
    team_server.storage.put_entries(
        REPO,
        {
            "MEMORY.md": "# Team\n\n- [Start](start.md) — where we begin\n",
            "start.md": "---\nname: Start\ndescription: where we begin\ntype: project\n---\n\nHello.\n",
        },
        None,
        max_entries=1000,
    )

    def memdir(n: int, *args: str) -> list[str]:
        return [sys.executable, "-m", "memdir", "--memory-dir", str(tmp_path / f"clone{n:02}"), *args]

    for n in range(20):  # in-process: only the concurrent syncs need processes of their own
        for args in (
            ["team", "pull", "--repo", REPO],
            ["add", "--type", "project", "--name", f"Clone {n}", "--description", f"what clone {n} knows",
             "--file", f"team/project_clone{n:02}.md"],
        ):  # fmt: skip
            result = CliRunner().invoke(cli, memdir(n, *args)[3:], env=env)
            assert result.exit_code == 0, result.output
    processes = [
        subprocess.Popen(memdir(n, "team", "sync", "--repo", REPO, "--json"), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for n in range(20)
    ]  # fmt: skip
    outcomes = [process.communicate(timeout=300) for process in processes]
    assert [process.returncode for process in processes] == [0] * 20, [err for _out, err in outcomes]
    stored = team_server.storage.get_repo(REPO)
    assert stored is not None
    assert not [key for key in stored.entries if "conflict" in key]
    listed = sorted(entry.file for _, entry in parse_entries(stored.entries["MEMORY.md"]))
    assert listed == sorted(["start.md", *(f"project_clone{n:02}.md" for n in range(20))])
