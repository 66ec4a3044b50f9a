import json
from pathlib import Path

import pytest
from _session_fixtures import assistant, user, write_transcript
from click.testing import CliRunner

from memdir.cli import cli
from memdir.paths import sanitize_path

SESSION = "5d1c7a20-1111-4222-8333-444455556666"
CURRENT_STATE = "_What is being worked on right now, what is still pending, and the very next step to take._\n"


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("MEMDIR_MODEL", raising=False)
    monkeypatch.delenv("ENABLE_CLAUDE_CODE_SM_COMPACT", raising=False)
    monkeypatch.delenv("DISABLE_CLAUDE_CODE_SM_COMPACT", raising=False)
    project = tmp_path / "proj"
    project.mkdir()

    def invoke(*args):
        return CliRunner().invoke(cli, ["--project", str(project), "session", *args], catch_exceptions=False)

    invoke.tmp = tmp_path
    invoke.notes = (
        tmp_path / "home" / "projects" / sanitize_path(str(project)) / SESSION / "session-memory" / "summary.md"
    )
    return invoke


def transcript(tmp_path, tokens=12_000, extra=()):
    path = tmp_path / f"{SESSION}.jsonl"
    messages = [
        user("Add retries to the HTTP client", uuid="u1"),
        assistant("Added retries in client.py", tokens=tokens, message_id="msg_1", uuid="a1"),
        *extra,
    ]
    write_transcript(path, messages)
    return str(path)


def script(tmp_path, notes_path):
    path = tmp_path / "model.json"
    edit = {
        "name": "Edit",
        "input": {
            "file_path": str(notes_path),
            "old_string": CURRENT_STATE,
            "new_string": CURRENT_STATE + "Retries added to client.py; next: tests.\n",
        },
    }
    path.write_text(json.dumps({"responses": [{"tool_calls": [edit]}, {"text": "done"}]}), encoding="utf-8")
    return f"scripted:{path}"


def test_status_reports_the_documented_json(run):
    path = transcript(run.tmp)
    data = json.loads(run("status", "--transcript", path, "--json").stdout)
    assert data == {
        "tokens": 12_000,
        "initialized": False,
        "tool_calls_since_update": 0,
        "update_due": True,
        "claude_code": {
            "version": "2.1.330",
            "found_by": "no Claude Code found: the newest rules",
            "uses_notes_at_compact": False,
        },
    }
    assert "update due: yes" in run("status", "--transcript", path).stdout


def test_update_then_show_then_compact(run):
    path = transcript(run.tmp)
    result = run("update", "--transcript", path, "--model", script(run.tmp, run.notes), "--json")
    data = json.loads(result.stdout)
    assert data["updated"] and data["edits"] == 1 and data["path"] == str(run.notes)
    assert "Retries added to client.py" in run("show", "--session-id", SESSION).stdout
    shown = json.loads(run("show", "--transcript", path, "--json").stdout)
    assert shown["exists"] and "# Current State" in shown["sections"]

    status = json.loads(run("status", "--transcript", path, "--json").stdout)
    assert status["initialized"] and not status["update_due"]

    later = transcript(run.tmp, extra=[user("and backoff?", uuid="u2"), assistant("Added backoff", uuid="a2")])
    compacted = json.loads(run("compact", "--transcript", later, "--json").stdout)
    assert compacted["compacted"] and compacted["kept"] == ["u1", "a1", "u2", "a2"]
    assert "Retries added to client.py" in compacted["summary"] and later in compacted["summary"]
    text = run("compact", "--transcript", later).stdout
    assert text.rstrip().endswith("kept 4 messages verbatim: u1 a1 u2 a2")


def test_update_is_skipped_when_not_due(run):
    path = transcript(run.tmp, tokens=500)
    result = run("update", "--transcript", path, "--model", "scripted:/nonexistent.json")
    assert result.exit_code == 1 and "model script" in result.stderr
    empty = run.tmp / "empty.json"
    empty.write_text('{"responses": []}', encoding="utf-8")
    assert "not due" in run("update", "--transcript", path, "--model", f"scripted:{empty}").stdout


def test_update_without_a_model_explains_how_to_set_one(run):
    result = run("update", "--transcript", transcript(run.tmp))
    assert result.exit_code == 1 and "needs a model" in result.stderr


def test_compact_without_notes_falls_back(run):
    data = json.loads(run("compact", "--transcript", transcript(run.tmp), "--json").stdout)
    assert data == {
        "compacted": False,
        "reason": "no-notes",
        "detail": data["detail"],
        "claude_code": data["claude_code"],
    }
    assert "compact the ordinary way" in run("compact", "--transcript", transcript(run.tmp)).stdout


def test_message_json_needs_no_claude_code_transcript(run):
    path = run.tmp / "chat.json"
    path.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "x" * 4000},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
                ]
            }
        ),
        encoding="utf-8",
    )
    data = json.loads(run("status", "--transcript", str(path), "--session-id", "run-7", "--json").stdout)
    data.pop("claude_code")
    assert data == {"tokens": 1002, "initialized": False, "tool_calls_since_update": 1, "update_due": False}


def test_show_needs_a_session_and_existing_notes(run):
    assert "--session-id" in run("show").stderr
    missing = run("show", "--session-id", SESSION)
    assert missing.exit_code == 1 and "no session notes" in missing.stderr
    assert run("show", "--session-id", "../escape").exit_code == 1
    assert not Path(run.notes).exists()


@pytest.mark.parametrize(("version", "uses_notes"), [("2.1.88", True), ("2.1.330", False)])
def test_status_says_whether_the_claude_code_writing_the_transcript_compacts_from_the_notes(run, version, uses_notes):
    path = Path(transcript(run.tmp))
    line = {"type": "user", "version": version, "uuid": "u9", "message": {"role": "user", "content": "ok"}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    data = json.loads(run("status", "--transcript", str(path), "--json").stdout)
    assert data["claude_code"] == {
        "version": version,
        "found_by": f"transcript {path}",
        "uses_notes_at_compact": uses_notes,
    }
    text = run("status", "--transcript", str(path)).stdout
    if uses_notes:
        assert f"Claude Code {version} (transcript {path}): /compact can use these notes" in text
    else:
        assert "has no session-memory compaction: its /compact never reads these notes" in text
