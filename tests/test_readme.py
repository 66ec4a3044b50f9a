import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "llm"))
from _llm_wire import WireServer, anthropic_message

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent

NEEDS_MODEL = "needs a model: run against a local Anthropic-compatible server below"
# README commands the main test does not run, each with the reason. Everything else in a ```sh block
# runs word for word, in order, in a throw-away project and home.
NOT_RUN = {
    r"^make (demo|test)\b": "the set-up commands themselves",
    r"--selector llm|^memdir (extract|session|dream)\b": NEEDS_MODEL,
    r"^memdir team (serve|sync|log|restore)\b": "needs a team server (covered against local servers in tests/team)",
    r"^memdir ui\b": "a long-running web server (tests/ui drive it in chromium)",
    r"^memdir team token create\b": "needs the team server's database (covered in tests/server)",
    r"^MEMDIR_TEAM_SERVER=.* memdir team watch\b": "a long-running watcher against a server",
    r"^claude plugin\b": "the real Claude Code CLI (tests/claude_code/test_claude_code_plugin.py runs these)",
}


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def shell_commands(path):
    """Every command of the README's ```sh blocks, continuation lines joined."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
        pending = ""
        for line in block.splitlines():
            pending += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
            if not line.endswith("\\"):
                if pending.strip():
                    commands.append(pending.strip())
                pending = ""
    return commands


def reason_not_run(command):
    return next((why for pattern, why in NOT_RUN.items() if re.search(pattern, command)), None)


@pytest.fixture
def sandbox(tmp_path):
    home = tmp_path / "home"
    project = home / "code" / "payments"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("MEMDIR_", "CLAUDE_", "ANTHROPIC_", "OPENAI_")) and key not in ("VISUAL", "EDITOR")
    }
    env.update(
        HOME=str(home), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", EDITOR="true", MEMDIR_FORBID_MODEL_CALLS="1"
    )
    return project, env


def test_the_readme_python_example_runs_and_recalls_the_memory_it_saved(tmp_path):
    (block,) = python_blocks(README)
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "HOME": str(tmp_path)}
    env.pop("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", None)
    result = subprocess.run(
        [sys.executable, "-c", block], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "<system-reminder>" in result.stdout
    assert "Never mock the database." in result.stdout
    assert list((tmp_path / "home" / "projects").glob("*/memory/feedback_real_db_in_tests.md"))


def test_every_readme_shell_command_runs_word_for_word(sandbox):
    project, env = sandbox
    assert shutil.which("memdir", path=env["PATH"]) == str(BIN / "memdir")
    ran = []
    for command in shell_commands(README):
        if reason_not_run(command) is not None:
            continue
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert result.returncode == 0, f"README command failed: {command}\n{result.stdout}\n{result.stderr}"
        assert "Traceback" not in result.stderr, command
        ran.append(command)
    tour = {c.split()[1] for c in ran if c.startswith("memdir ")}
    assert {"path", "add", "list", "show", "recall", "prompt", "doctor", "reindex", "mv", "export", "rm"} <= tour
    assert {"import", "edit", "log", "instructions", "agent", "mcp", "hooks"} <= tour


def test_the_readme_commands_leave_a_store_doctor_calls_healthy(sandbox):
    project, env = sandbox
    for command in shell_commands(README):
        if reason_not_run(command) is None and command.startswith("memdir "):  # the daily log included
            subprocess.run(["bash", "-c", command], cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    doctor = subprocess.run(
        ["memdir", "doctor"], cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr


def test_every_readme_command_not_run_says_why():
    skipped = [c for c in shell_commands(README) if reason_not_run(c) is not None]
    assert len(skipped) >= 8  # the two set-up commands, the model block and the team lines
    assert all(c.startswith(("make ", "memdir ", "MEMDIR_TEAM_SERVER=", "claude plugin ")) for c in skipped)


SESSION = "3f2a9c1e-1111-2222-3333-444455556666"


def claude_code_transcript(turns):
    """A Claude Code transcript (JSON Lines) of (user, assistant) turns."""
    lines, parent = [], None
    for n, (said, reply) in enumerate(turns, start=1):
        for kind, uuid, content in (("user", f"u{n}", said), ("assistant", f"a{n}", [{"type": "text", "text": reply}])):
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


def model_replies(command):
    """What the local Anthropic-compatible server answers for each model command of the README."""
    if "--selector llm" in command:
        return [anthropic_message([{"type": "text", "text": '{"selected_memories": []}'}])]
    return [anthropic_message([{"type": "text", "text": "Nothing worth keeping in this conversation."}])] * 4


def test_the_readme_model_commands_run_against_a_local_anthropic_server(sandbox):
    project, env = sandbox
    home = Path(env["HOME"])
    transcript = claude_code_transcript([("we deploy the api with make deploy", "Noted.")])
    (home / ".claude" / "projects" / "-p").mkdir(parents=True)
    (home / ".claude" / "projects" / "-p" / "SESSION.jsonl").write_text(transcript, encoding="utf-8")
    (project / "SESSION.jsonl").write_text(transcript, encoding="utf-8")
    saved = [
        "memdir",
        "add",
        "--type",
        "project",
        "--name",
        "Deploys",
        "--description",
        "The api deploys with make deploy",
    ]
    subprocess.run(saved, cwd=project, env=env, check=True, capture_output=True)
    model_block = [c for c in shell_commands(README) if reason_not_run(c) == NEEDS_MODEL]
    assert len(model_block) >= 5
    calls = {}
    for command in model_block:
        with WireServer() as server:
            for reply in model_replies(command):
                server.queue(200, reply)
            model_env = {
                **env,
                "MEMDIR_MODEL": "anthropic:claude-sonnet-4-6",
                "ANTHROPIC_API_KEY": "sk-ant-test",
                "ANTHROPIC_BASE_URL": server.url,
            }
            result = subprocess.run(
                ["bash", "-c", command],
                cwd=project,
                env=model_env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=180,
            )
            calls[command.split("#")[0].strip()] = len(server.requests)
        assert result.returncode == 0, f"README command failed: {command}\n{result.stdout}\n{result.stderr}"
        assert "Traceback" not in result.stderr, command
    assert calls['memdir recall "deploy the api" --selector llm'] == 1
    assert calls["memdir extract --transcript ~/.claude/projects/-p/SESSION.jsonl"] >= 1


# What each README command needs beyond the core, as the CLI's "pip install 'memdir[...]'" says.
_EXTRA_OF = {
    r"--selector hybrid|--selector embed": "embed",
    r"^memdir ui\b": "ui",
    r"^memdir mcp\b": "mcp",
    r"^memdir team (serve|token)\b": "server",
    r"^memdir team (sync|pull|push|status|log|show|restore|resolve)\b": "team",
}


def test_make_demo_installs_every_extra_the_readme_tour_uses():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installed = set(re.search(r"^DEMO_EXTRAS := (.+)$", makefile, re.M).group(1).split(","))  # type: ignore[union-attr]
    assert "$(DEMO_EXTRAS)" in makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    needed = {
        extra
        for command in shell_commands(README)
        for pattern, extra in _EXTRA_OF.items()
        if re.search(pattern, command)
    }
    assert needed and needed <= installed, needed - installed
