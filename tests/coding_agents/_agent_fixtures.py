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
from collections.abc import Iterator
from pathlib import Path

import pytest
from _agent_install import CODEX, GEMINI, Release, default_cache, install
from _agent_session import SANDBOX, Sandbox
from _plan_runner import skipped_unless_runnable

__all__ = ["agent_releases", "releases", "sandbox"]


@pytest.fixture(scope="session")
def agent_releases() -> dict[str, dict[str, Release]]:
    """Codex and Gemini at their oldest and newest pinned releases, installed once per cache."""
    cache = Path(os.environ.get("MEMDIR_CODING_AGENTS_CACHE") or default_cache())
    with skipped_unless_runnable("Codex CLI and Gemini CLI", SANDBOX, "MEMDIR_REQUIRE_CODING_AGENTS"):
        return {
            age: {
                cli.name: install(cli, cli.oldest if age == "oldest" else cli.newest, cache) for cli in (CODEX, GEMINI)
            }
            for age in ("oldest", "newest")
        }


@pytest.fixture(scope="module", params=["oldest", "newest"])
def releases(request: pytest.FixtureRequest, agent_releases: dict[str, dict[str, Release]]) -> dict[str, Release]:
    return agent_releases[request.param]


@pytest.fixture
def sandbox(releases: dict[str, Release], tmp_path: Path) -> Iterator[Sandbox]:
    yield Sandbox(releases, tmp_path)
