import json
import os

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from memdir.agents import (
    AgentMemory,
    AgentScope,
    agent_dir_name,
    is_agent_memory_path,
    js_date,
    parse_agent_scope,
)
from memdir.cli import cli
from memdir.config import read_environment
from memdir.errors import UnsafePathError
from memdir.paths import sanitize_path


@pytest.fixture
def project(tmp_path):
    path = tmp_path.resolve() / "proj"
    path.mkdir()
    return path


def env_for(tmp_path, **extra):
    return {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"), **extra}


def environment_for(tmp_path, **extra):
    return read_environment(env_for(tmp_path, **extra))


def test_each_scope_has_its_directory_with_colons_turned_into_dashes(tmp_path, project):
    env = environment_for(tmp_path)
    user = AgentMemory.resolve("plugin:reviewer", "user", cwd=str(project), environment=env)
    assert user.dir == f"{tmp_path / 'cfg'}/agent-memory/plugin-reviewer/"
    proj = AgentMemory.resolve("plugin:reviewer", AgentScope.PROJECT, cwd=str(project), environment=env)
    assert proj.dir == f"{project}/.claude/agent-memory/plugin-reviewer/"
    local = AgentMemory.resolve("plugin:reviewer", "local", cwd=str(project), environment=env)
    assert local.dir == f"{project}/.claude/agent-memory-local/plugin-reviewer/"


def test_a_remote_memory_dir_moves_user_and_local_scopes(tmp_path, project):
    env = environment_for(tmp_path, CLAUDE_CODE_REMOTE_MEMORY_DIR=str(tmp_path / "remote"))
    user = AgentMemory.resolve("a", "user", cwd=str(project), environment=env)
    assert user.dir == f"{tmp_path / 'remote'}/agent-memory/a/"
    local = AgentMemory.resolve("a", "local", cwd=str(project), environment=env)
    assert local.dir == f"{tmp_path / 'remote'}/projects/{sanitize_path(str(project))}/agent-memory-local/a/"
    assert (
        AgentMemory.resolve("a", "project", cwd=str(project), environment=env).dir
        == f"{project}/.claude/agent-memory/a/"
    )


def test_agent_types_that_are_paths_are_refused():
    for bad in ("", ".", "..", "a/b", "..\\x", "x\0y"):
        with pytest.raises(UnsafePathError):
            agent_dir_name(bad)


def test_only_the_three_scopes_are_accepted():
    assert parse_agent_scope("project") is AgentScope.PROJECT
    assert parse_agent_scope("global") is None
    assert parse_agent_scope(None) is None


def test_agent_memory_paths_are_recognised_under_every_root(tmp_path, project):
    env = environment_for(tmp_path)
    assert is_agent_memory_path(f"{tmp_path}/cfg/agent-memory/x/notes.md", cwd=str(project), environment=env)
    assert is_agent_memory_path(f"{project}/.claude/agent-memory-local/x/a.md", cwd=str(project), environment=env)
    assert not is_agent_memory_path(f"{project}/.claude/settings.json", cwd=str(project), environment=env)


def test_the_prompt_inlines_the_index_and_the_scope_note(tmp_path, project):
    memory = AgentMemory.resolve("reviewer", "project", cwd=str(project), environment=environment_for(tmp_path))
    empty = memory.prompt()
    assert empty.startswith("# Persistent Agent Memory\n")
    assert memory.dir in empty
    assert "shared with its other contributors through version control" in empty
    assert empty.rstrip().endswith(
        "## MEMORY.md\n\nYour MEMORY.md has nothing in it yet. "
        "The memories you save will be listed here in later sessions."
    )
    assert os.path.isdir(memory.dir)

    with open(memory.entrypoint, "w", encoding="utf-8") as handle:
        handle.write("\n".join(f"- [m{n}](m{n}.md) — hook" for n in range(250)))
    full = memory.prompt(extra_guidelines=("Be brief.",))
    assert "## MEMORY.md\n\n- [m0](m0.md) — hook" in full
    assert "- [m199](m199.md)" in full and "- [m200](m200.md)" not in full
    assert "> WARNING: MEMORY.md is 250 lines (limit: 200)." in full
    assert "Be brief." in full
    assert full.index("version control") < full.index("Be brief.") < full.index("## MEMORY.md")


def test_each_scope_has_its_own_note(tmp_path, project):
    notes = {
        scope: AgentMemory.resolve("a", scope, cwd=str(project), environment=environment_for(tmp_path)).prompt()
        for scope in AgentScope
    }
    assert "every project" in notes[AgentScope.USER]
    assert "not checked into version control" in notes[AgentScope.LOCAL]
    assert len(set(notes.values())) == 3


def write_snapshot(project, agent_type, updated_at, files):
    snapshot = project / ".claude" / "agent-memory-snapshots" / agent_type
    snapshot.mkdir(parents=True, exist_ok=True)
    (snapshot / "snapshot.json").write_text(json.dumps({"updatedAt": updated_at}), encoding="utf-8")
    for name, text in files.items():
        (snapshot / name).write_text(text, encoding="utf-8")
    return snapshot


def test_snapshot_lifecycle_initialize_then_prompt_update_then_replace(tmp_path, project):
    memory = AgentMemory.resolve("plugin:rev", "user", cwd=str(project), environment=environment_for(tmp_path))
    assert memory.check_snapshot().action == "none"
    snapshot = write_snapshot(
        project, "plugin:rev", "2026-01-01T00:00:00Z", {"MEMORY.md": "- [a](a.md) — a", "a.md": "A", "data.txt": "t"}
    )
    (snapshot / "sub").mkdir()
    (snapshot / "sub" / "deep.md").write_text("deep", encoding="utf-8")
    assert memory.snapshot_dir.endswith("/agent-memory-snapshots/plugin:rev")

    check = memory.check_snapshot()
    assert (check.action, check.snapshot_timestamp) == ("initialize", "2026-01-01T00:00:00Z")
    copied = memory.initialize_from_snapshot(check.snapshot_timestamp)
    assert sorted(os.path.basename(p) for p in copied) == ["MEMORY.md", "a.md", "data.txt"]
    with open(memory.marker_path, encoding="utf-8") as handle:
        assert handle.read() == '{"syncedFrom":"2026-01-01T00:00:00Z"}'
    assert memory.check_snapshot().action == "none"

    write_snapshot(project, "plugin:rev", "2026-02-01", {"b.md": "B"})
    (snapshot / "a.md").unlink()
    with open(memory.dir + "mine.md", "w", encoding="utf-8") as handle:
        handle.write("local only")
    assert memory.check_snapshot().action == "prompt-update"
    memory.replace_from_snapshot("2026-02-01")
    assert sorted(os.listdir(memory.dir)) == [".snapshot-synced.json", "MEMORY.md", "b.md", "data.txt"]
    assert memory.check_snapshot().action == "none"


def test_a_missing_or_broken_marker_asks_for_an_update(tmp_path, project):
    memory = AgentMemory.resolve("a", "user", cwd=str(project), environment=environment_for(tmp_path))
    write_snapshot(project, "a", "2026-01-01", {"a.md": "A"})
    os.makedirs(memory.dir)
    with open(memory.dir + "x.md", "w", encoding="utf-8") as handle:
        handle.write("x")
    assert memory.check_snapshot().action == "prompt-update"
    with open(memory.marker_path, "w", encoding="utf-8") as handle:
        handle.write('{"syncedFrom": ""}')
    assert memory.check_snapshot().action == "prompt-update"
    memory.mark_snapshot_synced("2026-01-01")
    assert memory.check_snapshot().action == "none"


def test_an_invalid_snapshot_json_means_no_snapshot(tmp_path, project):
    memory = AgentMemory.resolve("a", "user", cwd=str(project), environment=environment_for(tmp_path))
    snapshot = write_snapshot(project, "a", "", {"a.md": "A"})
    assert memory.check_snapshot().action == "none"
    (snapshot / "snapshot.json").write_text("not json", encoding="utf-8")
    assert memory.check_snapshot().action == "none"


def test_dates_compare_like_javascript():
    assert js_date("2026-01-01") == js_date("2026-01-01T00:00:00.000Z")
    assert js_date("2026-01-01T02:00:00+02:00") == js_date("2026-01-01T00:00:00Z")
    assert js_date("2026-13-01") is None
    assert js_date("yesterday") is None


def test_an_unparseable_snapshot_date_never_prompts(tmp_path, project):
    memory = AgentMemory.resolve("a", "user", cwd=str(project), environment=environment_for(tmp_path))
    write_snapshot(project, "a", "soon", {"a.md": "A"})
    memory.initialize_from_snapshot("2025-01-01")
    assert memory.check_snapshot().action == "none"


@given(st.datetimes(timezones=st.just(__import__("datetime").UTC)))
def test_iso_strings_round_trip_through_js_date(moment):
    text = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    parsed = js_date(text)
    assert parsed is not None and abs((parsed - moment).total_seconds()) < 0.001


def test_the_cli_prints_paths_prompts_and_applies_snapshots(tmp_path, project, monkeypatch):
    for key, value in env_for(tmp_path).items():
        monkeypatch.setenv(key, value)
    runner = CliRunner()
    base = ["--project", str(project), "agent"]
    result = runner.invoke(cli, [*base, "path", "--agent-type", "a:b", "--scope", "local"])
    assert result.output.strip() == f"{project}/.claude/agent-memory-local/a-b/"
    monkeypatch.setenv("CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES", "Be brief.")
    prompt = runner.invoke(cli, [*base, "prompt", "--agent-type", "a:b"])
    assert prompt.exit_code == 0 and prompt.output.startswith("# Persistent Agent Memory")
    assert "Be brief." in prompt.output  # the operator's guidelines reach the agent's prompt too
    failed = runner.invoke(cli, [*base, "snapshot", "initialize", "--agent-type", "a:b"])
    assert failed.exit_code != 0 and "snapshot.json" in failed.output
    write_snapshot(project, "a:b", "2026-03-01T10:00:00Z", {"m.md": "M"})
    assert runner.invoke(cli, [*base, "snapshot", "check", "--agent-type", "a:b"]).output.strip() == "initialize"
    applied = runner.invoke(cli, [*base, "snapshot", "initialize", "--agent-type", "a:b", "--json"])
    data = json.loads(applied.output)
    assert data["action"] == "initialize" and data["copied"] == [f"{tmp_path}/cfg/agent-memory/a-b/m.md"]
    assert runner.invoke(cli, [*base, "snapshot", "check", "--agent-type", "a:b"]).output.strip() == "none"


def test_a_snapshot_symlink_out_of_the_project_is_not_copied_into_agent_memory(tmp_path, project):
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY", encoding="utf-8")
    memory = AgentMemory.resolve("rev", "user", cwd=str(project), environment=environment_for(tmp_path))
    snapshot = write_snapshot(project, "rev", "2026-01-01T00:00:00Z", {"a.md": "A"})
    os.symlink(secret, snapshot / "MEMORY.md")
    with pytest.raises(UnsafePathError):
        memory.initialize_from_snapshot("2026-01-01T00:00:00Z")
    assert not os.path.exists(memory.entrypoint)


def test_a_symlinked_snapshot_directory_outside_the_project_is_refused(tmp_path, project):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "snapshot.json").write_text(json.dumps({"updatedAt": "2026-01-01"}), encoding="utf-8")
    (elsewhere / "MEMORY.md").write_text("PRIVATE", encoding="utf-8")
    (project / ".claude" / "agent-memory-snapshots").mkdir(parents=True)
    os.symlink(elsewhere, project / ".claude" / "agent-memory-snapshots" / "rev")
    memory = AgentMemory.resolve("rev", "user", cwd=str(project), environment=environment_for(tmp_path))
    with pytest.raises(UnsafePathError):
        memory.initialize_from_snapshot("2026-01-01")
    assert not os.path.exists(memory.entrypoint)


def test_snapshot_copy_does_not_write_through_a_symlink_in_agent_memory(tmp_path, project):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    memory = AgentMemory.resolve("rev", "user", cwd=str(project), environment=environment_for(tmp_path))
    os.makedirs(memory.dir)
    os.symlink(victim, memory.dir + "a.md")
    write_snapshot(project, "rev", "2026-01-01T00:00:00Z", {"a.md": "A"})
    with pytest.raises(UnsafePathError):
        memory.initialize_from_snapshot("2026-01-01T00:00:00Z")
    assert victim.read_text(encoding="utf-8") == "keep"


def test_a_fifo_in_place_of_the_agent_index_does_not_hang_the_prompt(tmp_path, project):
    memory = AgentMemory.resolve("reviewer", "project", cwd=str(project), environment=environment_for(tmp_path))
    os.makedirs(memory.dir)
    os.mkfifo(memory.entrypoint)
    assert "Your MEMORY.md has nothing in it yet." in memory.prompt()
