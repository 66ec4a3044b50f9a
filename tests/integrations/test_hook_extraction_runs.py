"""The commands the Stop, SessionEnd and PreCompact hooks start: wait for the turn, run once, log it."""

import json
import os
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.integrations.hooks.turn_wait import reply_digest
from memdir.llm import FORBID_ENV_VAR

SESSION = "5b1c0d2e-aaaa-4bbb-8ccc-0123456789ab"
MEMORY = "---\nname: Squash merges\ndescription: Always squash-merges PRs\ntype: user\n---\n\nSquash.\n"


def line(uuid, kind, text, parent):
    content = text if kind == "user" else [{"type": "text", "text": text}]
    message = {"role": kind, "content": content, **({"id": f"msg_{uuid}"} if kind == "assistant" else {})}
    return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": False, "message": message})


TURN = line("u1", "user", "I always squash-merge my pull requests", None) + "\n"
REPLY = line("a1", "assistant", "Noted: squash merges.", "u1") + "\n"


class Setup:
    """A session's transcript path, a memory directory and two scripted models: one saves, one refuses."""

    def __init__(self, root):
        self.root = root
        self.memory = root / "memory"
        self.transcript = root / f"{SESSION}.jsonl"
        self.log = root / "logs" / "extract.log"
        self.env = {"CLAUDE_CONFIG_DIR": str(root / "claude"), "HOME": str(root), FORBID_ENV_VAR: "1"}
        self.args = ["--memory-dir", str(self.memory)]
        write = {"file_path": str(self.memory / "user_squash.md"), "content": MEMORY}
        self.model = self.script("model.json", {"tool_calls": [{"name": "Write", "input": write}]}, {"text": "Saved."})
        self.no_model_call = self.script("no-call.json", {"error": "http", "message": "no call expected"})

    def script(self, name, *responses):
        path = self.root / name
        path.write_text(json.dumps({"responses": list(responses)}), encoding="utf-8")
        return f"scripted:{path}"

    def extract(self, *extra, model=None):
        argv = [*self.args, "extract", "--transcript", str(self.transcript), "--model", model or self.model]
        return CliRunner().invoke(cli, [*argv, "--log", str(self.log), *extra], env=self.env)

    def logged(self):
        return [text.split("]: ", 1)[1] for text in self.log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def setup(tmp_path):
    return Setup(tmp_path)


def test_extraction_waits_for_a_transcript_written_after_the_hook_and_logs_what_it_read_and_wrote(setup):
    writer = threading.Timer(0.3, lambda: setup.transcript.write_text(TURN + REPLY, encoding="utf-8"))
    writer.start()
    try:
        done = setup.extract("--wait", "10", "--reply", reply_digest("Noted: squash merges."), "--json")
    finally:
        writer.join()
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["written"] == [str(setup.memory / "user_squash.md")]
    [logged] = setup.logged()
    assert logged.startswith(f"session {SESSION}: the turn's reply is written (after the start) (")
    assert logged.endswith("s); read 2 messages up to a1 (last reply msg_a1); wrote user_squash.md")


def test_a_later_run_for_the_same_turn_finds_nothing_new_and_calls_no_model(setup):
    setup.transcript.write_text(TURN + REPLY, encoding="utf-8")
    assert setup.extract("--wait", "10", "--reply", "new").exit_code == 0
    again = setup.extract("--wait", "10", model=setup.no_model_call)
    assert again.exit_code == 0, again.output
    assert setup.logged()[1].endswith(
        "read 2 messages up to a1 (last reply msg_a1); wrote nothing: no new messages since the last extraction"
    )


def test_two_runs_of_one_session_started_together_send_the_turn_to_the_model_once(setup):
    setup.transcript.write_text(TURN + REPLY, encoding="utf-8")
    env = {**os.environ, **setup.env, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = [sys.executable, "-m", "memdir.cli", *setup.args, "extract", "--transcript", str(setup.transcript)]
    runs = [
        subprocess.Popen([*argv, "--model", setup.model, "--wait", "10", "--log", str(setup.log)], env=env)
        for _ in range(2)
    ]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    outcomes = sorted(text.rsplit("; ", 1)[1] for text in setup.logged())
    assert outcomes == ["wrote nothing: no new messages since the last extraction", "wrote user_squash.md"]


def test_a_transcript_that_never_appears_is_logged_as_nothing_to_read(setup):
    done = setup.extract("--wait", "0.3", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["skipped"] == "the conversation holds no messages yet"
    [logged] = setup.logged()
    assert logged.startswith(f"session {SESSION}: gave up after 0.3 s: the transcript does not exist (")
    assert logged.endswith("read no messages; wrote nothing: the conversation holds no messages yet")


def test_a_turn_to_wait_for_needs_a_wait_and_a_well_formed_digest(setup):
    setup.transcript.write_text(TURN + REPLY, encoding="utf-8")
    bad = setup.extract("--wait", "1", "--reply", "squash")
    assert bad.exit_code == 2 and "'squash' is neither 16 hex digits nor 'new'" in bad.output
    unbounded = setup.extract("--prompt-id", "p1")
    assert unbounded.exit_code == 2 and "add --wait SECONDS" in unbounded.output
    assert not setup.log.exists()


def test_the_session_notes_update_after_pre_compact_waits_for_the_transcript_and_logs(setup):
    setup.transcript.write_text(TURN + REPLY, encoding="utf-8")
    log = setup.root / "logs" / "session.log"
    argv = [*setup.args, "session", "update", "--transcript", str(setup.transcript), "--session-id", SESSION]
    done = CliRunner().invoke(
        cli, [*argv, "--model", setup.no_model_call, "--wait", "5", "--log", str(log)], env=setup.env
    )
    assert done.exit_code == 0, done.output
    [logged] = log.read_text(encoding="utf-8").splitlines()
    assert f"session update [pid {os.getpid()}]: session {SESSION}: the transcript is written and has not" in logged
    assert "read 2 messages up to a1 (last reply msg_a1); notes unchanged: no update due" in logged
