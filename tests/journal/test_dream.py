import asyncio
import json
import os
import time

import pytest
from _journal_helpers import NOW, add_sessions, set_lock
from click.testing import CliRunner

from memdir.cli import cli
from memdir.errors import ModelNotConfigured, ModelTimeout
from memdir.journal import append_log, arun_dream, run_dream
from memdir.llm import ScriptedModel
from memdir.store.directory import MemoryDir

TOPIC = "---\nname: Deploy day\ndescription: Deploys happen on Tuesdays only\ntype: project\n---\nDeploy on Tuesdays.\n"


def call(name, **arguments):
    return {"name": name, "input": arguments}


def dream_script(config):
    mem = config.memory_dir
    return [
        {"tool_calls": [call("LS"), call("Read", file_path=mem + "MEMORY.md"), call("LSTranscripts")]},
        {
            "tool_calls": [
                call("GrepTranscripts", pattern="Tuesdays"),
                call("Write", file_path=mem + "project_deploy.md", content=TOPIC),
                call("Delete", file_path=mem + "stale.md"),
                call("Write", file_path=mem + "MEMORY.md", content="- [Deploy day](project_deploy.md) — Tuesdays\n"),
            ]
        },
        {"text": "Merged the deploy notes; removed a stale memory."},
    ]


def prepare(config, now=NOW):
    memory = MemoryDir(config.memory_dir)
    memory.ensure()
    (memory.as_path() / "stale.md").write_text("---\nname: old\ndescription: old\ntype: project\n---\nx", "utf-8")
    (memory.as_path() / "MEMORY.md").write_text("- [old](stale.md) — old\n", "utf-8")
    append_log(memory, "Deploys moved to Tuesdays")
    add_sessions(config, 5, now - 600)
    set_lock(config, "", now - 86400 * 2)


def test_a_due_dream_writes_topic_files_and_the_index_and_reports_them(config, clock):
    prepare(config)
    model = ScriptedModel(dream_script(config))
    progress = []

    report = run_dream(config, model, clock=clock, on_progress=lambda turn, total: progress.append((turn, total)))

    assert report.ran and report.stopped == "done" and report.turns == 3
    assert report.improved == ("project_deploy.md",)
    assert report.deleted == ("stale.md",)
    assert report.index_files == ("MEMORY.md",)
    assert len(report.sessions) == 5 and report.logs[0].startswith("logs/")
    assert report.summary.startswith("Merged")
    assert progress == [(1, 30), (2, 30), (3, 30)]
    assert MemoryDir(config.memory_dir).index_text().startswith("- [Deploy day]")
    lock = os.path.join(config.memory_dir, ".consolidate-lock")
    assert os.stat(lock).st_mtime == NOW
    with open(lock, encoding="utf-8") as handle:
        assert handle.read() == str(os.getpid())

    first = model.requests[0]
    assert "Phase 1" in first.system and config.transcripts_dir in first.system
    assert {t.name for t in first.tools} >= {"Write", "Delete", "ReadTranscript", "GrepTranscripts", "LSTranscripts"}
    task = first.messages[0].text
    assert all(session in task for session in report.sessions) and report.logs[0] in task
    grep_result = model.requests[2].messages[-1].tool_results[0]
    assert ".jsonl" in grep_result.content and not grep_result.is_error


def test_a_model_error_mid_run_rolls_the_lock_back_to_its_prior_mtime(config, clock):
    prepare(config)
    script = [*dream_script(config)[:1], {"error": "timeout"}]
    with pytest.raises(ModelTimeout):
        run_dream(config, ScriptedModel(script), clock=clock)
    lock = os.path.join(config.memory_dir, ".consolidate-lock")
    assert os.stat(lock).st_mtime == NOW - 86400 * 2
    with open(lock, encoding="utf-8") as handle:
        assert handle.read() == ""


def test_a_failed_first_dream_removes_the_lock_it_created(config, clock):
    add_sessions(config, 5, NOW - 600)
    with pytest.raises(ModelTimeout):
        run_dream(config, ScriptedModel([{"error": "timeout"}]), clock=clock)
    assert not os.path.exists(os.path.join(config.memory_dir, ".consolidate-lock"))


def test_a_lock_held_by_a_live_process_blocks_even_a_forced_dream(config, clock):
    add_sessions(config, 5, NOW - 600)
    set_lock(config, str(os.getppid()), NOW - 1800)
    model = ScriptedModel([])
    report = run_dream(config, model, clock=clock, force=True)
    assert not report.ran and f"PID {os.getppid()}" in report.reason
    assert model.requests == []


def test_a_dream_that_is_not_due_does_not_need_a_model(config, clock):
    add_sessions(config, 2, NOW - 600)
    report = run_dream(config, None, clock=clock)
    assert not report.ran and "2 session(s)" in report.reason
    add_sessions(config, 5, NOW - 600)
    with pytest.raises(ModelNotConfigured):
        run_dream(config, None, clock=clock)


def test_a_dry_run_reports_the_decision_and_sessions_without_a_model_or_the_lock(config, clock):
    prepare(config)
    report = run_dream(config, None, clock=clock, dry_run=True)
    assert report.dry_run and not report.ran and report.reason.startswith("would dream: 5 sessions")
    assert len(report.sessions) == 5
    assert os.stat(os.path.join(config.memory_dir, ".consolidate-lock")).st_mtime == NOW - 86400 * 2


def test_force_skips_the_gate_but_takes_the_lock(config, clock):
    set_lock(config, "", NOW - 60)
    report = run_dream(config, ScriptedModel([{"text": "nothing to do"}]), clock=clock, force=True)
    assert report.ran and report.improved == () and report.summary == "nothing to do"
    assert os.stat(os.path.join(config.memory_dir, ".consolidate-lock")).st_mtime == NOW


def test_transcripts_are_read_only_and_logs_are_append_only(config, clock):
    prepare(config)
    memory = MemoryDir(config.memory_dir)
    log_path = config.memory_dir + memory_logs(memory)[0]
    transcript = os.path.join(config.transcripts_dir, os.listdir(config.transcripts_dir)[0])
    script = [
        {
            "tool_calls": [
                call("ReadTranscript", file_path=transcript),
                call("Write", file_path=transcript, content="x"),
                call("Edit", file_path=log_path, old_string="Deploys", new_string="Nope"),
                call("Delete", file_path=log_path),
                call("Bash", command="rm -rf /"),
            ]
        },
        {"text": "done"},
    ]
    model = ScriptedModel(script)
    report = run_dream(config, model, clock=clock)
    results = model.requests[1].messages[-1].tool_results
    assert "we deploy on Tuesdays" in results[0].content and not results[0].is_error
    assert all(result.is_error for result in results[1:])
    assert "append-only" in results[2].content
    assert report.improved == () and report.deleted == ()
    with open(log_path, encoding="utf-8") as handle:
        assert "Deploys moved to Tuesdays" in handle.read()


def memory_logs(memory):
    from memdir.journal import list_logs

    return list_logs(memory)


def test_the_turn_budget_is_a_setting_and_stops_the_run(tmp_path, env, clock):
    from memdir.config import resolve_config

    project = tmp_path / "p3"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text('{"memdir": {"dreamMaxTurns": 2}}', encoding="utf-8")
    config = resolve_config(str(project), env=env)
    script = [{"tool_calls": [call("LS")]}] * 3
    report = run_dream(config, ScriptedModel(script), clock=clock, force=True)
    assert report.stopped == "max_turns" and report.turns == 2


def test_the_async_driver_runs_the_same_dream(config, clock):
    prepare(config)
    report = asyncio.run(arun_dream(config, ScriptedModel(dream_script(config)), clock=clock))
    assert report.ran and report.improved == ("project_deploy.md",)


def test_the_cli_dreams_with_a_scripted_model_and_prints_progress(config, tmp_path, env, monkeypatch):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": dream_script(config)}), encoding="utf-8")
    prepare(config, now=time.time())
    runner = CliRunner()
    base = ["--project", config.project_root, "dream"]

    dry = runner.invoke(cli, [*base, "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    data = json.loads(dry.stdout)
    assert data["dry_run"] and len(data["sessions"]) == 5

    result = runner.invoke(cli, [*base, "--force", "--model", f"scripted:{script}"])
    assert result.exit_code == 0, result.output
    assert "turn 1/30" in result.stderr and "turn 3/30" in result.stderr
    assert "improved project_deploy.md" in result.stdout
    assert "deleted stale.md" in result.stdout and "index MEMORY.md" in result.stdout

    missing = runner.invoke(cli, [*base, "--force"])
    assert missing.exit_code == 1 and "no model is configured" in missing.stderr


def test_a_symlink_to_the_logs_folder_does_not_open_the_logs_to_the_dream(config, clock):
    prepare(config)
    memory = MemoryDir(config.memory_dir)
    rel = memory_logs(memory)[0]
    os.symlink(os.path.join(config.memory_dir, "logs"), os.path.join(config.memory_dir, "journal"))
    via_link = os.path.join(config.memory_dir, "journal", rel.split("/", 1)[1])
    script = [
        {"tool_calls": [call("Edit", file_path=via_link, old_string="Deploys", new_string="Nope")]},
        {"text": "done"},
    ]
    model = ScriptedModel(script)
    run_dream(config, model, clock=clock)
    result = model.requests[1].messages[-1].tool_results[0]
    assert result.is_error and "append-only" in result.content
    with open(config.memory_dir + rel, encoding="utf-8") as handle:
        assert "Deploys moved to Tuesdays" in handle.read()
