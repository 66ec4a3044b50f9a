"""``make demo``: memdir end to end on a throw-away project, with no API key and no server.

Everything happens under a temporary directory (the config home included), so the user's real
``~/.claude`` is never read or written.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import textwrap

from memdir.config import resolve_config
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType

__all__ = ["main"]

MEMORIES = [
    Memory(
        name="Role and expertise",
        description="Backend lead on the payments team; reviews more than writes; deep Postgres knowledge",
        type=MemoryType.USER,
        body="Maya leads the payments backend. Prefers short review-style answers and knows PostgreSQL well,\n"
        "so skip the basics of indexing and transactions.",
    ),
    Memory(
        name="Integration tests use a real database",
        description="Integration tests must hit a real PostgreSQL database, never mocks",
        type=MemoryType.FEEDBACK,
        body="Never mock the database in integration tests.\n"
        "**Why:** a mocked test passed while a broken migration shipped to production (March incident).\n"
        "**How to apply:** tests under tests/integration start the docker-compose PostgreSQL service.",
    ),
    Memory(
        name="Confirmed: one PR for refactors",
        description="User confirmed that refactors of the ledger module go out as one bundled pull request",
        type=MemoryType.FEEDBACK,
        body="Refactors of the ledger module ship as a single pull request, not a stack.\n"
        "**Why:** reviewers want to see the whole change at once; a split refactor was hard to follow.\n"
        "**How to apply:** when refactoring ledger/, keep all commits on one branch and one PR.",
    ),
    Memory(
        name="Mobile release freeze",
        description="Merge freeze for the mobile release from 2026-03-05; payment API changes must wait",
        type=MemoryType.PROJECT,
        body="The mobile team cuts its release branch on 2026-03-05; no payment API changes merge after that.\n"
        "**Why:** the app pins the API contract for the release.\n"
        "**How to apply:** flag any API change and suggest landing it before 2026-03-05 or after the release.",
    ),
    Memory(
        name="Payments incident tracker",
        description="Payment pipeline bugs are tracked in the PAY project of the issue tracker; dashboards in Grafana",
        type=MemoryType.REFERENCE,
        body="Bugs: the PAY project in the issue tracker. Latency and error rates: the 'payments-api' Grafana "
        "dashboard. On-call channel: #payments-oncall.",
    ),
]

QUERIES = [
    "Can you write integration tests for the refund endpoint?",
    "where do we track the bugs for the payment pipeline?",
    "I want to change the payment API response format next week",
]


def _rule(title: str) -> None:
    print(f"\n{'=' * 100}\n{title}\n{'=' * 100}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="memdir-demo-") as tmp:
        project = os.path.join(tmp, "payments-service")
        os.makedirs(project)
        subprocess.run(["git", "init", "-q", project], check=False, capture_output=True)
        env = {"CLAUDE_CONFIG_DIR": os.path.join(tmp, "claude-home"), "HOME": tmp}
        config = resolve_config(project, env=env)
        session = MemorySession(config)

        _rule("1. Saving five memories through the public API")
        print(f"project:          {config.project_root}")
        print(f"memory directory: {config.memory_dir}")
        for memory in MEMORIES:
            result = session.memory_dir.save(memory)
            print(f"  saved {result.file:<48} index updated: {result.index_changed}")
        print("\nMEMORY.md:\n" + textwrap.indent(session.memory_dir.index_text(), "  "))

        _rule("2. The memory section of the system prompt (built once per session)")
        print(session.system_prompt_section())

        _rule("3. The index, delivered as user context")
        print(session.user_context())

        for number, query in enumerate(QUERIES, start=4):
            _rule(f"{number}. Recall for the user message: {query!r}")
            recalled = session.recall(query)
            print(f"selector: {recalled.selector}; surfaced: {[m.file for m in recalled.memories]}\n")
            for reminder in recalled.reminders:
                print(reminder)
                print()
            if not recalled.reminders:
                print("(nothing new to surface)")


if __name__ == "__main__":
    main()
