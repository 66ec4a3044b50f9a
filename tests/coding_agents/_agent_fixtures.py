"""The fixtures that run the real Codex CLI and Gemini CLI (and Claude Code) next to memdir, offline.

Both CLIs are installed from the npm registry into a cache outside the repository
(``_agent_install``); every run happens in a fresh network namespace whose only interface is
``lo``, where ``_agent_sandbox`` serves each CLI's wire format and the Messages API memdir's
extraction uses (``_agent_session`` holds the HOME and project). When a CLI cannot be installed
or the namespace cannot be made, the tests are skipped with the reason (failed instead when
MEMDIR_REQUIRE_CODING_AGENTS=1). Claude Code joins when its own tests have installed it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _agent_install import CODEX, GEMINI, Release, Unavailable, default_cache, install
from _agent_session import MEMDIR, SANDBOX, Sandbox

__all__ = ["agent_releases", "releases", "sandbox"]


def _namespace_problem() -> str | None:
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    if os.geteuid() != 0:
        return "unshare -n needs root"
    done = subprocess.run(["unshare", "-n", sys.executable, str(SANDBOX), "--check"], capture_output=True, timeout=30)
    return None if done.returncode == 0 else f"unshare -n failed: {done.stderr.decode()[-200:]}"


@pytest.fixture(scope="session")
def agent_releases() -> dict[str, dict[str, Release]]:
    """Codex and Gemini at their oldest and newest pinned releases, installed once per cache."""
    cache = Path(os.environ.get("MEMDIR_CODING_AGENTS_CACHE") or default_cache())
    try:
        problem = _namespace_problem()
        if problem is not None:
            raise Unavailable(problem)
        if not MEMDIR.is_file():
            raise Unavailable(f"no memdir executable next to {sys.executable}")
        return {
            age: {
                cli.name: install(cli, cli.oldest if age == "oldest" else cli.newest, cache) for cli in (CODEX, GEMINI)
            }
            for age in ("oldest", "newest")
        }
    except Unavailable as exc:
        message = f"Codex CLI and Gemini CLI cannot run here: {exc}"
        if os.environ.get("MEMDIR_REQUIRE_CODING_AGENTS") == "1":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module", params=["oldest", "newest"])
def releases(request: pytest.FixtureRequest, agent_releases: dict[str, dict[str, Release]]) -> dict[str, Release]:
    return agent_releases[request.param]


@pytest.fixture
def sandbox(releases: dict[str, Release], tmp_path: Path) -> Iterator[Sandbox]:
    yield Sandbox(releases, tmp_path)
