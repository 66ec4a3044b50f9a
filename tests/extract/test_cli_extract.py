import json

import pytest
from click.testing import CliRunner

from memdir.cli import cli

SESSION = "3f2a9c1e-1111-2222-3333-444455556666"


def transcript_lines(turns):
    lines, parent = [], None
    for n, (said, reply) in enumerate(turns, start=1):
        for kind, uuid, content in (
            ("user", f"u{n}", said),
            ("assistant", f"a{n}", [{"type": "text", "text": reply}]),
        ):
            entry = {
                "parentUuid": parent,
                "isSidechain": False,
                "type": kind,
                "sessionId": SESSION,
                "uuid": uuid,
                "message": {"role": kind, "content": content},
            }
            lines.append(json.dumps(entry))
            parent = uuid
    return "\n".join(lines) + "\n"


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    for name in ("MEMDIR_MODEL", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "CLAUDE_CODE_DISABLE_AUTO_MEMORY"):
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "proj"
    project.mkdir()
    memory = tmp_path / "mem"

    class Env:
        root = tmp_path

        def run(self, *args):
            return CliRunner().invoke(cli, ["--memory-dir", str(memory), *args], catch_exceptions=False)

        def script(self, name, *responses):
            path = tmp_path / name
            path.write_text(json.dumps({"responses": list(responses)}), encoding="utf-8")
            return f"scripted:{path}"

        def transcript(self, turns):
            path = tmp_path / f"{SESSION}.jsonl"
            path.write_text(transcript_lines(turns), encoding="utf-8")
            return str(path)

    Env.memory = memory
    return Env()


def saving(path, text):
    return {"tool_calls": [{"name": "Write", "input": {"file_path": path, "content": text}}]}


MEMORY = "---\nname: Tabs\ndescription: Always indent with tabs\ntype: feedback\n---\n\nUse tabs.\n"


def test_extract_runs_over_a_claude_code_transcript_and_keeps_a_cursor_per_session(env):
    transcript = env.transcript([("always use tabs, never spaces", "Will do.")])
    spec = env.script("s.json", saving("feedback_tabs.md", MEMORY), {"text": "done"})
    result = env.run("extract", "--transcript", transcript, "--model", spec, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0
    assert data["skipped"] is None and data["turns"] == 2 and data["denied"] == []
    assert data["written"] == [str(env.memory / "feedback_tabs.md")]
    assert (env.memory / "feedback_tabs.md").read_text(encoding="utf-8") == MEMORY
    state = next((env.root / "home" / "projects").glob(f"*/{SESSION}/memdir-extract.json"))
    assert json.loads(state.read_text(encoding="utf-8"))["cursor"] == "a1"

    again = json.loads(env.run("extract", "--transcript", transcript, "--model", spec, "--json").stdout)
    assert again["skipped"] == "no new messages since the last extraction"

    rerun = env.run("extract", "--transcript", transcript, "--model", env.script("t.json", {"text": "x"}), "--all")
    assert rerun.exit_code == 0 and "nothing worth saving" in rerun.stdout


def test_extract_reads_memdirs_message_json_and_prints_what_it_saved(env):
    conversation = env.root / "conversation.json"
    conversation.write_text(
        json.dumps({"messages": [{"role": "user", "content": "tabs please"}, {"role": "assistant", "content": "ok"}]}),
        encoding="utf-8",
    )
    spec = env.script("s.json", saving("feedback_tabs.md", MEMORY), {"text": "done"})
    result = env.run("extract", "--transcript", str(conversation), "--model", spec)
    assert result.exit_code == 0
    assert "Saved 1 memory" in result.stdout and "feedback_tabs.md" in result.stdout


def test_refused_calls_are_shown_and_listed_in_json(env):
    transcript = env.transcript([("hi there", "hello")])
    spec = env.script("s.json", saving("/etc/passwd", "x"), {"text": "done"})
    data = json.loads(env.run("extract", "--transcript", transcript, "--model", spec, "--json").stdout)
    assert data["denied"][0]["tool"] == "Write" and "memory directory" in data["denied"][0]["reason"]


def test_a_failed_model_call_exits_1_and_keeps_the_cursor(env):
    transcript = env.transcript([("hi there", "hello")])
    result = env.run("extract", "--transcript", transcript, "--model", env.script("s.json", {"error": "timeout"}))
    assert result.exit_code == 1 and "extraction failed" in result.stderr
    assert not list((env.root / "home" / "projects").glob(f"*/{SESSION}/memdir-extract.json"))


def test_without_a_model_the_error_names_the_three_ways_to_configure_one(env):
    transcript = env.transcript([("hi there", "hello")])
    result = env.run("extract", "--transcript", transcript)
    assert result.exit_code == 1
    assert "--model" in result.stderr and "MEMDIR_MODEL" in result.stderr and "memdir.model" in result.stderr


def test_the_model_can_come_from_the_environment(env, monkeypatch):
    transcript = env.transcript([("hi there", "hello")])
    monkeypatch.setenv("MEMDIR_MODEL", env.script("s.json", {"text": "nothing"}))
    data = json.loads(env.run("extract", "--transcript", transcript, "--json").stdout)
    assert data["error"] is None and data["turns"] == 1
