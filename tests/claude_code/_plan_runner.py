"""The host's side of a sandbox run, for every real CLI the suites drive (Claude Code here, Codex
and Gemini in ``tests/coding_agents``): whether a loopback-only network namespace can be made, the
skip (or failure) that says why not, and one plan of steps run in such a namespace."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _install import Unavailable

MEMDIR = Path(sys.executable).with_name("memdir")


def namespace_problem(sandbox: Path) -> str | None:
    """Why ``sandbox`` cannot run in a loopback-only network namespace here, or None when it can."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    if os.geteuid() != 0:
        return "unshare -n needs root"
    try:
        done = subprocess.run(
            ["unshare", "-n", sys.executable, str(sandbox), "--check"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare -n did not run: {exc}"
    if done.returncode != 0:
        return f"unshare -n failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}"
    return None


@contextmanager
def skipped_unless_runnable(what: str, sandbox: Path, required_variable: str) -> Iterator[None]:
    """Run the body (which installs the CLIs) once the namespace and the memdir executable are
    there; when anything is missing, skip with the one reason why, or fail when
    ``required_variable`` is set to 1."""
    try:
        problem = namespace_problem(sandbox)
        if problem is not None:
            raise Unavailable(problem)
        if not MEMDIR.is_file():
            raise Unavailable(f"no memdir executable next to {sys.executable}")
        yield
    except Unavailable as exc:
        message = f"{what} cannot run here: {exc}"
        if os.environ.get(required_variable) == "1":
            pytest.fail(message)
        pytest.skip(message)


def run_plan(sandbox: Path, root: Path, plan: dict[str, Any], step_timeout: int) -> dict[str, Any]:
    """Run ``plan`` (its env, cwd, rules and steps) with the ``sandbox`` script in a fresh
    loopback-only namespace, the plan and its result kept under ``root``; what the sandbox wrote
    back: each step's exit code and output (``steps``) and every request a CLI sent (``requests``)."""
    plan_path = root / f"plan-{len(list(root.glob('plan-*')))}.json"
    result_path = plan_path.with_suffix(".result.json")
    plan_path.write_text(json.dumps({**plan, "result": str(result_path)}), encoding="utf-8")
    limit = sum(int(s.get("timeout", step_timeout)) for s in plan["steps"]) + 30
    done = subprocess.run(
        ["unshare", "-n", sys.executable, str(sandbox), str(plan_path)], capture_output=True, text=True, timeout=limit
    )
    assert done.returncode == 0 and result_path.is_file(), f"sandbox failed: {done.stderr[-3000:]}"
    data: dict[str, Any] = json.loads(result_path.read_text(encoding="utf-8"))
    return data
