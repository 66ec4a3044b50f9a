import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent

# README commands the test does not run, each with the reason. Everything else in a ```sh block
# runs word for word, in order, in a throw-away project and home.
NOT_RUN = {
    r"^make (demo|test)\b": "the set-up commands themselves",
    r"--selector llm|^memdir (extract|session|dream)\b": "needs a model key (covered with scripted models elsewhere)",
    r"^memdir team (serve|sync)\b": "needs a team server (covered against local servers in tests/team)",
    r"^memdir team token create\b": "needs the team server's database (covered in tests/server)",
    r"^MEMDIR_TEAM_SERVER=.* memdir team watch\b": "a long-running watcher against a server",
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
    assert all(c.startswith(("make ", "memdir ", "MEMDIR_TEAM_SERVER=")) for c in skipped)
