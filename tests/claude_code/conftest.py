"""Fixtures that run the real Claude Code CLI next to memdir, with nothing but loopback to talk to.

The CLI is installed from the npm registry into a cache outside the repository (see ``_install``);
every run happens in a fresh network namespace (``unshare -n``, root only) whose sole interface is
``lo``, where ``_sandbox`` serves a scripted Messages API and runs the commands of the test. When
the CLI cannot be installed or the namespace cannot be made, every test here is skipped with the
one reason why, which the suite's summary prints once (failed instead when MEMDIR_REQUIRE_CLAUDE_CODE=1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).resolve().parent
_LLM_TESTS = str(_HERE.parent / "llm")
for _path in (str(_HERE), _LLM_TESTS):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from _install import OLDEST, Release, default_cache, install, newest_version  # noqa: E402
from _plan_runner import MEMDIR, run_plan, skipped_unless_runnable  # noqa: E402

from memdir.llm import FORBID_ENV_VAR  # noqa: E402

SANDBOX = _HERE / "_sandbox.py"
_TIMINGS: list[str] = []
STEP_TIMEOUT = 60
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def report_timing(line: str) -> None:
    """Keep a line for the terminal summary, so that timings show in CI output whether tests pass or fail."""
    _TIMINGS.append(line)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _TIMINGS:
        terminalreporter.write_sep("-", "Claude Code interop timings")
        for line in _TIMINGS:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def claude_code_releases() -> dict[str, Release]:
    """The oldest supported and the newest release, installed once per cache."""
    cache = Path(os.environ.get("MEMDIR_CLAUDE_CODE_CACHE") or default_cache())
    with skipped_unless_runnable("the Claude Code CLI", SANDBOX, "MEMDIR_REQUIRE_CLAUDE_CODE"):
        newest = newest_version(cache)
        return {"oldest": install(OLDEST, cache), "newest": install(newest, cache)}


@pytest.fixture(scope="module", params=["oldest", "newest"])
def release(request: pytest.FixtureRequest, claude_code_releases: dict[str, Release]) -> Release:
    return claude_code_releases[request.param]


@dataclass
class Outcome:
    """What one sandbox run did: each step's exit code and output, and every request the CLI sent."""

    steps: list[dict[str, Any]]
    requests: list[dict[str, Any]]

    def step(self, index: int) -> dict[str, Any]:
        return self.steps[index]

    def messages_requests(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["method"] == "POST" and r["path"].startswith("/v1/messages?")]

    def main_requests(self) -> list[dict[str, Any]]:
        """Requests of the agent loop (they offer tools), in order."""
        return [b for b in self.messages_requests() if b.get("tools")]

    def side_queries(self, system_has: str) -> list[dict[str, Any]]:
        from _sandbox import system_text

        return [b for b in self.messages_requests() if not b.get("tools") and system_has in system_text(b)]

    def result(self, index: int) -> dict[str, Any]:
        """The final JSON line of a ``claude -p --output-format json|stream-json`` step."""
        lines = [line for line in self.steps[index]["stdout"].splitlines() if line.startswith("{")]
        assert lines, self.describe(index)
        parsed: dict[str, Any] = json.loads(lines[-1])
        return parsed

    def describe(self, index: int) -> str:
        step = self.steps[index] if index < len(self.steps) else {}
        out, err = step.get("stdout", "")[-2000:], step.get("stderr", "")[-2000:]
        return f"step {index}: rc={step.get('rc')}\nstdout: {out}\nstderr: {err}"


@dataclass
class Sandbox:
    """A temp HOME and project for one release, and a way to run steps against a scripted model."""

    release: Release
    root: Path
    home: Path = field(init=False)
    project: Path = field(init=False)
    bin: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.bin = self.root / "bin"
        for directory in (self.home, self.project, self.bin):
            directory.mkdir()
        # `claude` on PATH, as users have it: memdir may ask it for its version.
        wrapper = self.bin / "claude"
        quoted = " ".join(f"'{part}'" for part in self.release.argv)
        wrapper.write_text(f'#!/bin/sh\nexec {quoted} "$@"\n', encoding="utf-8")
        wrapper.chmod(0o755)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True, timeout=30)

    def env(self, *, growthbook: bool = False) -> dict[str, str]:
        """The environment of every step: temp HOME, no proxies, fake key, no update checks.

        With ``growthbook`` the server-side switches are read from the cached copy in .claude.json,
        which Claude Code only does while non-essential traffic is allowed (harmless here: only
        loopback exists inside the namespace).
        """
        env = {
            "HOME": str(self.home),
            "PATH": f"{self.bin}:{MEMDIR.parent}:{SYSTEM_PATH}",
            "ANTHROPIC_API_KEY": "sk-ant-test-key",
            "DISABLE_AUTOUPDATER": "1",
            "MCP_CONNECTION_NONBLOCKING": "0",
            "LANG": "C.UTF-8",
        }
        if not growthbook:
            env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        return env

    def enable_switches(self, **switches: Any) -> None:
        config = self.home / ".claude.json"
        data = json.loads(config.read_text(encoding="utf-8")) if config.is_file() else {}
        data.setdefault("cachedGrowthBookFeatures", {}).update(switches)
        config.write_text(json.dumps(data), encoding="utf-8")

    def claude(self, prompt: str, *extra: str, timeout: int = STEP_TIMEOUT) -> dict[str, Any]:
        return {"argv": [*self.release.argv, "-p", prompt, "--output-format", "json", *extra], "timeout": timeout}

    def claude_raw(self, *args: str) -> dict[str, Any]:
        return {"argv": [*self.release.argv, *args], "timeout": STEP_TIMEOUT}

    @staticmethod
    def memdir(*args: str, stdin: str = "") -> dict[str, Any]:
        return {"argv": [str(MEMDIR), *args], "stdin": stdin, "timeout": STEP_TIMEOUT}

    def run(self, steps: list[dict[str, Any]], rules: list[dict[str, Any]], *, growthbook: bool = False) -> Outcome:
        """Run ``steps`` in order inside a fresh loopback-only namespace next to the scripted API."""
        plan = {"env": self.env(growthbook=growthbook), "cwd": str(self.project), "rules": rules, "steps": steps}
        data = run_plan(SANDBOX, self.root, plan, STEP_TIMEOUT)
        outcome = Outcome(data["steps"], data["requests"])
        for index, step in enumerate(outcome.steps):
            assert step["rc"] == 0 or any(s.get("may_fail") for s in steps[index : index + 1]), outcome.describe(index)
        assert len(outcome.steps) == len(steps), outcome.describe(len(outcome.steps) - 1)
        return outcome

    def memdir_here(self, *args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """memdir run in the test's own network (for calls to a wire-format server on 127.0.0.1)."""
        env = {**self.env(), **(extra_env or {})}
        env[FORBID_ENV_VAR] = "1"
        return subprocess.run(
            [str(MEMDIR), *args], cwd=self.project, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT
        )

    def memory_dir(self) -> Path:
        done = self.memdir_here("path")
        assert done.returncode == 0, done.stderr
        return Path(done.stdout.strip())


@pytest.fixture
def sandbox(release: Release, tmp_path: Path) -> Iterator[Sandbox]:
    yield Sandbox(release, tmp_path)
