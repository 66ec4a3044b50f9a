"""What people decide about two memories, recorded and undone; writers that race; a person asked."""

import json
import os
import pty
import select
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.model.memory import Memory


@pytest.fixture
def env(tmp_path):
    return {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home"),
        "MEMDIR_FORBID_MODEL_CALLS": "1",
        "PYTHONUTF8": "1",
    }


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    mem = tmp_path / "mem"

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], input=input, catch_exceptions=False)

    invoke.mem = mem
    return invoke


def add(run, name, description, kind="project"):
    done = run("add", "--type", kind, "--name", name, "--description", description)
    assert done.exit_code == 0, done.stderr


def test_relate_records_replaces_and_different_in_the_frontmatter_and_keeps_the_memory_s_time(run):
    add(run, "On call", "Dana is on call for atlas")
    add(run, "Pager handover", "Kenji has the atlas pager")
    path = run.mem / "project_on_call.md"
    old_mtime = path.stat().st_mtime_ns - 3_600_000_000_000
    os.utime(path, ns=(old_mtime, old_mtime))
    before = path.read_text(encoding="utf-8")
    done = run("relate", "project_pager_handover.md", "--replaces", "On call")
    assert done.exit_code == 0 and done.stdout.strip() == "project_pager_handover.md replaces project_on_call.md"
    assert "\nreplaces: [project_on_call.md]\n" in (run.mem / "project_pager_handover.md").read_text(encoding="utf-8")
    different = run("relate", "project_on_call.md", "--different", "project_pager_handover.md")
    assert different.stdout.strip() == "project_on_call.md distinct-from project_pager_handover.md"
    text = path.read_text(encoding="utf-8")
    assert "\ndistinct-from: [project_pager_handover.md]\n" in text
    assert text.replace("distinct-from: [project_pager_handover.md]\n", "") == before  # nothing else moved
    assert path.stat().st_mtime_ns == old_mtime  # recording a decision does not make the fact newer
    again = run("relate", "project_on_call.md", "--different", "project_pager_handover.md")
    assert again.stdout.strip() == "nothing to change: already recorded"
    forgot = run("relate", "project_on_call.md", "--forget", "project_pager_handover.md")
    assert forgot.exit_code == 0 and path.read_text(encoding="utf-8") == before


def test_relate_refuses_what_it_cannot_record(run):
    add(run, "On call", "Dana is on call for atlas")
    assert run("relate", "project_on_call.md").exit_code == 2
    itself = run("relate", "project_on_call.md", "--replaces", "project_on_call.md")
    assert itself.exit_code == 1 and "cannot be related to itself" in itself.stderr
    missing = run("relate", "project_on_call.md", "--replaces", "nope.md")
    assert missing.exit_code == 1 and "nope.md" in missing.stderr


def test_undo_takes_a_recorded_relation_back(run):
    add(run, "On call", "Dana is on call for atlas")
    add(run, "Pager handover", "Kenji has the atlas pager")
    before = (run.mem / "project_pager_handover.md").read_text(encoding="utf-8")
    assert run("relate", "project_pager_handover.md", "--replaces", "project_on_call.md").exit_code == 0
    undone = run("undo", "--last")
    assert undone.exit_code == 0, undone.stderr
    assert (run.mem / "project_pager_handover.md").read_text(encoding="utf-8") == before


def test_mv_and_merge_keep_relations_working(run):
    add(run, "On call", "Dana is on call for atlas")
    add(run, "Pager handover", "Kenji has the atlas pager")
    add(run, "Pager again", "Ravi has the atlas pager now")
    run("relate", "project_pager_handover.md", "--replaces", "project_on_call.md")
    moved = run("mv", "project_on_call.md", "project_oncall_week_12.md")
    assert moved.exit_code == 0 and "relations updated in project_pager_handover.md" in moved.stdout
    handover = (run.mem / "project_pager_handover.md").read_text(encoding="utf-8")
    assert "replaces: [project_oncall_week_12.md]" in handover
    run("relate", "project_pager_again.md", "--replaces", "project_pager_handover.md")
    merged = run("merge", "project_pager_again.md", "project_oncall_week_12.md")
    assert merged.exit_code == 0, merged.stderr
    # The replaced memory was merged into the one that replaces its replacement: the chain holds.
    handover = (run.mem / "project_pager_handover.md").read_text(encoding="utf-8")
    assert "replaces: [project_pager_again.md]" in handover


def test_the_four_pairs_written_alike_are_never_proposed_and_a_decided_pair_is_not_proposed_again(run):
    add(run, "Checkout timeout", "The checkout API times out after 30 seconds")
    add(run, "Search timeout", "The search API times out after 5 seconds")
    add(run, "Billing owner", "Alice owns the billing service")
    add(run, "Search owner", "Bob owns the search service")
    add(run, "Staging database port", "The staging database listens on port 5433")
    add(run, "Production database port", "The production database listens on port 5432")
    add(run, "Latency", "Dashboard API p95 is 800 ms")
    old = run.mem / "project_latency.md"
    os.utime(old, (time.time() - 86_400 * 30, time.time() - 86_400 * 30))
    _rewrite_stamp(old, "2026-01-10T09:00:00.000Z")
    add(run, "Latency (updated)", "Dashboard API p95 is 250 ms after caching")
    notes = json.loads(run("doctor", "--json").stdout)["notes"]
    proposals = [note for note in notes if note["rule"] in ("identical", "same-subject")]
    assert [note["file"] for note in proposals] == []  # one word says too little ("Latency")
    run("mv", "project_latency.md", "project_dashboard_api_latency.md")
    run("mv", "project_latency_updated.md", "project_dashboard_api_latency_updated.md")
    for file, name in (
        ("project_dashboard_api_latency.md", "Dashboard API latency"),
        ("project_dashboard_api_latency_updated.md", "Dashboard API latency (updated)"),
    ):
        _rename(run.mem / file, name)
    notes = json.loads(run("doctor", "--json").stdout)["notes"]
    proposals = [note for note in notes if note["rule"] == "same-subject"]
    assert len(proposals) == 1 and proposals[0]["file"] == "project_dashboard_api_latency.md"
    assert (
        "memdir relate project_dashboard_api_latency_updated.md --different project_dashboard_api_latency.md"
        in (proposals[0]["message"])
    )
    run("relate", "project_dashboard_api_latency_updated.md", "--different", "project_dashboard_api_latency.md")
    notes = json.loads(run("doctor", "--json").stdout)["notes"]
    assert [note for note in notes if note["rule"] == "same-subject"] == []


def _rewrite_stamp(path, modified):
    text = path.read_text(encoding="utf-8")
    start = text.index("modified: ")
    end = text.index("\n", start)
    mtime = path.stat().st_mtime
    path.write_text(f'{text[:start]}modified: "{modified}"{text[end:]}', encoding="utf-8")
    os.utime(path, (mtime, mtime))


def _rename(path, name):
    mtime = path.stat().st_mtime
    memory = Memory.parse(path.read_text(encoding="utf-8"))
    from dataclasses import replace

    path.write_text(replace(memory, name=name).render(), encoding="utf-8")
    os.utime(path, (mtime, mtime))


def cli_add(env, mem, *args):
    return subprocess.run(
        [sys.executable, "-m", "memdir", "--memory-dir", str(mem), "add", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_twenty_concurrent_adds_of_numbered_topics_all_save(tmp_path, env):
    mem = tmp_path / "mem"

    def one(number):
        return cli_add(
            env,
            mem,
            "--type",
            "project",
            "--name",
            f"Topic {number}",
            "--description",
            f"Concurrent topic number {number}",
        )

    with ThreadPoolExecutor(max_workers=20) as pool:
        done = list(pool.map(one, range(1, 21)))
    assert [d.returncode for d in done] == [0] * 20, [d.stderr for d in done if d.returncode]
    assert len(list(mem.glob("project_topic_*.md"))) == 20
    index = (mem / "MEMORY.md").read_text(encoding="utf-8")
    assert all(f"project_topic_{n}.md" in index for n in range(1, 21))


def test_two_writers_saving_one_memory_at_once_save_it_once(tmp_path, env):
    mem = tmp_path / "mem"
    args = ("--type", "feedback", "--name", "Real DB", "--description", "Integration tests hit a real database")

    with ThreadPoolExecutor(max_workers=6) as pool:
        done = list(pool.map(lambda n: cli_add(env, mem, *args, "--file", f"copy{n}.md"), range(6)))
    assert sorted(d.returncode for d in done) == [0, 1, 1, 1, 1, 1]
    assert len(list(mem.glob("copy*.md"))) == 1
    assert all("nearly word for word" in d.stderr for d in done if d.returncode)


def test_a_person_at_a_terminal_is_asked_before_a_memory_that_may_repeat_one_is_saved(tmp_path, env):
    mem = tmp_path / "mem"
    assert (
        cli_add(env, mem, "--type", "feedback", "--name", "Real DB", "--description", "Tests hit a real DB").returncode
        == 0
    )
    args = ["--type", "feedback", "--name", "No mocks", "--description", "Tests must use a real DB, never mocks"]
    for answer, saved in (("n", False), ("y", True)):
        text, code = _at_terminal([sys.executable, "-m", "memdir", "--memory-dir", str(mem), "add", *args], env, answer)
        assert "these memories may already say it:" in text and "feedback_real_db.md (saved today)" in text
        assert "Save it as a new memory anyway? [Y/n]" in text
        assert (mem / "feedback_no_mocks.md").exists() is saved and code == (0 if saved else 1), text


def _at_terminal(argv, env, answer):
    """Run ``argv`` with stdin, stdout and stderr on a pseudo-terminal, answering the first question."""
    main, side = pty.openpty()
    process = subprocess.Popen(argv, env=env, stdin=side, stdout=side, stderr=side)
    os.close(side)
    seen = b""
    answered = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not answered and b"[Y/n]" in seen:
            os.write(main, answer.encode() + b"\n")
            answered = True
        if process.poll() is not None and not ready:
            break
    code = process.wait(timeout=30)
    os.close(main)
    return seen.decode("utf-8", "replace"), code
