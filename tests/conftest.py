"""Suite-wide settings."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from memdir.llm import FORBID_ENV_VAR, forbid_real_model_calls

# Property tests check behaviour, not speed: on a loaded 2-core CI machine a per-example deadline
# only produces flaky failures.
settings.register_profile("memdir", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("memdir")

# Set at import so subprocesses started by tests inherit it too. Calls to a loopback base URL
# (the wire-format test servers) stay allowed; see memdir.llm.base.check_model_call_allowed.
os.environ[FORBID_ENV_VAR] = "1"


@pytest.fixture(autouse=True)
def _no_real_model_calls() -> Iterator[None]:
    with forbid_real_model_calls(True):
        yield


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """MEMDIR_TEST_POSTGRES, else a throwaway cluster; skipped when neither (failed if required)."""
    import subprocess

    from team_servers import throwaway_cluster

    required = os.environ.get("MEMDIR_REQUIRE_POSTGRES") == "1"
    url = os.environ.get("MEMDIR_TEST_POSTGRES")
    if url:
        yield url
        return
    try:
        with throwaway_cluster() as started:
            if started is None:
                message = "PostgreSQL is not available (set MEMDIR_TEST_POSTGRES or install postgresql)"
                if required:
                    pytest.fail(message)
                pytest.skip(message)
            yield started
    except (OSError, subprocess.SubprocessError) as exc:
        if required:
            pytest.fail(f"could not start PostgreSQL: {exc}")
        pytest.skip(f"could not start PostgreSQL: {exc}")


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty team-server database: SQLite in tmp_path, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'team.db'}"
        return
    from team_servers import fresh_postgres_database

    admin_url = request.getfixturevalue("postgres_admin_url")
    with fresh_postgres_database(admin_url) as url:
        yield url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say at the end why tests were skipped: a missing PostgreSQL or strace skips whole groups of
    tests, and the bare "68 skipped" count does not tell a local run what it did not check."""
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"memdir: {count} test{'s' if count != 1 else ''} skipped: {reason}", yellow=True)
