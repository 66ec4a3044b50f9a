"""A setting a newer memdir writes never stops an older one: an unknown ``memdir.*`` key, or an
unknown value of a known key, is warned about once and keeps its default, in every command, in
``memdir mcp`` and in the hooks; a hook that does nothing says why in its log.

Real processes (``python -m memdir.cli``, the official MCP client over stdio), a project's shared
``.claude/settings.json`` in a temp directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from memdir.cli import cli
from memdir.config import resolve_config
from memdir.integrations.hooks.events import run_hook
from memdir.llm import FORBID_ENV_VAR

NEWER = {"memdir": {"futureKey": 1, "agentWrites": "ask", "extractEveryTurn": 2}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(NEWER), encoding="utf-8")
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "home"), FORBID_ENV_VAR: "1"}


def memdir(project: Path, env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    full = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path), **env}
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", "--project", str(project), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        cwd=project,
        timeout=120,
    )


def test_unknown_keys_and_values_keep_their_defaults_and_are_listed_once_each(project: Path, env: dict[str, str]):
    config = resolve_config(str(project), env=env)
    assert config.memdir.agent_writes == "review", "an unknown agentWrites mode never lets agents write more"
    assert config.memdir.extract_every_turns == 1
    messages = [problem.message for problem in config.settings_problems]
    assert len(messages) == 3 and all(problem.rule == "settings" for problem in config.settings_problems)
    assert any("memdir.futureKey is not a memdir setting" in m and m.endswith("memdir ignores it") for m in messages)
    assert any("did you mean memdir.extractEveryTurns?" in m for m in messages)
    assert any('memdir.agentWrites must be direct, review or off, not "ask"' in m for m in messages)
    assert any(m.endswith('memdir uses "review" instead') for m in messages)


def test_every_command_runs_and_warns_once_on_stderr(project: Path, env: dict[str, str]) -> None:
    added = memdir(project, env, "add", "--type", "user", "--name", "Role", "--description", "a data scientist")
    assert added.returncode == 0, added.stderr
    assert added.stderr.count("memdir.futureKey is not a memdir setting") == 1, added.stderr
    runner = CliRunner(env=env)
    for args in (["path"], ["list"], ["recall", "what does the user do?"], ["prompt"], ["doctor"]):
        result = runner.invoke(cli, ["--project", str(project), *args], catch_exceptions=False)
        assert result.exit_code == 0, (args, result.output)
    doctor = runner.invoke(cli, ["--project", str(project), "doctor"], catch_exceptions=False)
    assert "note: " in doctor.output and "memdir.futureKey is not a memdir setting" in doctor.output


def test_memdir_mcp_starts_and_answers(project: Path, env: dict[str, str]) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir.cli", "--project", str(project), "mcp"],
        env={**env, "PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(project),
    )

    async def main() -> int:
        with anyio.fail_after(60):
            async with Client(params) as client:
                return len((await client.list_tools()).tools)

    assert anyio.run(main) == 8


def test_the_hooks_recall_and_log_the_settings_and_a_hook_that_does_nothing_says_why(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    description = "Deploys of the billing api go out on Tuesdays after the freeze"
    added = memdir(project, env, "add", "--type", "project", "--name", "Billing deploys", "--description", description)
    assert added.returncode == 0, added.stderr
    assert memdir(project, env, "reindex").returncode == 0  # the derived index the prompt hook ranks in
    environment = resolve_config(str(project), env=env).environment
    started = run_hook("session-start", {"cwd": str(project), "source": "startup"}, environment=environment)
    assert started.note
    log = tmp_path / "home" / "memdir" / "logs" / "hooks.log"
    assert "settings: settings key memdir.futureKey is not a memdir setting" in log.read_text(encoding="utf-8")
    prompt = {"cwd": str(project), "session_id": "s1", "prompt": "when do deploys of the billing api go out?"}
    answered = run_hook("user-prompt-submit", prompt, environment=environment)
    assert answered.output is not None and "Tuesdays" in json.dumps(answered.output)

    (project / ".claude" / "settings.json").write_text("{not json", encoding="utf-8")
    failed = memdir(project, env, "hook", "user-prompt-submit", stdin=json.dumps(prompt))
    assert failed.returncode == 0 and failed.stdout == ""
    lines = log.read_text(encoding="utf-8").splitlines()
    assert "hook user-prompt-submit" in lines[-1] and "did nothing: ConfigError" in lines[-1]
    assert "settings.json" in lines[-1]
