"""A throw-away HOME and project where Codex CLI, Gemini CLI and Claude Code talk to the scripted model."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _agent_install import Release
from _agent_sandbox import PORT
from _plan_runner import MEMDIR, run_plan

from memdir.llm import FORBID_ENV_VAR

SANDBOX = Path(__file__).resolve().parent / "_agent_sandbox.py"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
STEP_TIMEOUT = 90
MODEL = "gemini-2.5-flash"


def claude_code_executable() -> str | None:
    """The newest Claude Code release in its test cache (tests/claude_code installs it), or None."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memdir" / "claude-code"
    cache = Path(os.environ.get("MEMDIR_CLAUDE_CODE_CACHE") or base)
    native = sorted(cache.glob("*/node_modules/@anthropic-ai/claude-code-linux-x64/claude"))
    return str(native[-1]) if native else None


@dataclass
class Outcome:
    steps: list[dict[str, Any]]
    requests: list[dict[str, Any]]

    def bodies(self, path_has: str) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["method"] == "POST" and path_has in r["path"]]

    def describe(self, index: int) -> str:
        step = self.steps[index] if index < len(self.steps) else {}
        out, err = step.get("stdout", "")[-1500:], step.get("stderr", "")[-2500:]
        return f"step {index} {step.get('argv')}: rc={step.get('rc')}\n{out}\n{err}"


@dataclass
class Sandbox:
    """A temp HOME and git project with Codex, Gemini (and Claude Code) configured for the fake model."""

    releases: dict[str, Release]
    root: Path
    home: Path = field(init=False)
    project: Path = field(init=False)
    bin: Path = field(init=False)
    claude: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.home, self.project, self.bin = self.root / "home", self.root / "project", self.root / "bin"
        for directory in (self.home, self.project, self.bin):
            directory.mkdir()
        self.claude = claude_code_executable()
        commands = {name: release.executable for name, release in self.releases.items()}
        if self.claude is not None:
            commands["claude"] = self.claude
        for name, executable in commands.items():  # on PATH, as people have them: memdir asks `codex` for trust
            wrapper = self.bin / name
            wrapper.write_text(f"#!/bin/sh\nexec '{executable}' \"$@\"\n", encoding="utf-8")
            wrapper.chmod(0o755)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True, timeout=30)
        codex = self.home / ".codex"
        codex.mkdir()
        (codex / "config.toml").write_text(
            f'model = "gpt-5"\nmodel_provider = "fake"\napproval_policy = "never"\n'
            f"check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n"
            f'[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:{PORT}/v1"\n'
            f'env_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n',
            encoding="utf-8",
        )
        gemini = self.home / ".gemini"
        gemini.mkdir()
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "telemetry": {"enabled": False},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "model": {"name": MODEL},
        }
        (gemini / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "PATH": f"{self.bin}:{MEMDIR.parent}:{SYSTEM_PATH}",
            "LANG": "C.UTF-8",
            "FAKE_OPENAI_KEY": "sk-test",
            "GEMINI_API_KEY": "test-key",
            "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{PORT}",
            "ANTHROPIC_API_KEY": "sk-ant-test-key",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "MEMDIR_MODEL": "anthropic:claude-haiku-4-5",
        }

    @staticmethod
    def memdir(*args: str, stdin: str = "") -> dict[str, Any]:
        return {"argv": [str(MEMDIR), *args], "stdin": stdin, "timeout": STEP_TIMEOUT}

    def codex(self, prompt: str) -> dict[str, Any]:
        return {"argv": ["codex", "exec", "--skip-git-repo-check", prompt], "timeout": STEP_TIMEOUT}

    def gemini(self, prompt: str) -> dict[str, Any]:
        return {"argv": ["gemini", "-p", prompt], "timeout": STEP_TIMEOUT}

    def claude_code(self, prompt: str) -> dict[str, Any]:
        return {"argv": ["claude", "-p", prompt, "--output-format", "json"], "timeout": STEP_TIMEOUT}

    def run(self, steps: list[dict[str, Any]], rules: list[dict[str, Any]]) -> Outcome:
        plan = {"env": self.env(), "cwd": str(self.project), "rules": rules, "steps": steps}
        data = run_plan(SANDBOX, self.root, plan, STEP_TIMEOUT)
        outcome = Outcome(data["steps"], data["requests"])
        for index, step in enumerate(outcome.steps):
            assert step["rc"] == 0, outcome.describe(index)
        assert len(outcome.steps) == len(steps), outcome.describe(len(outcome.steps) - 1)
        return outcome

    def memdir_here(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**self.env(), FORBID_ENV_VAR: "1"}
        return subprocess.run(
            [str(MEMDIR), *args], cwd=self.project, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT
        )
