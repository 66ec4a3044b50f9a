"""Codex CLI, Gemini CLI and Claude Code share one memory, through memdir's hooks, for real.

One sandbox run per pair of releases (the oldest pinned Codex with the oldest Gemini, the newest
with the newest): memdir's hooks are installed for each CLI with ``memdir hooks install --agent``
(Codex's trust recorded through ``codex app-server``), then a Codex session, a Gemini session, a
second Codex session and a Claude Code session follow each other in one project. The scripted
model answers each CLI's prompt; memdir's extraction agent (the Messages API) saves one memory
after the Codex turn and another after the Gemini turn. Checked: (a) a memory saved with memdir
reaches the model's request on a prompt; (b) an extraction request carrying the turn's reply,
and none of the context memdir added, reaches the model after the turn; (c) the memory saved
from the Codex session is recalled in the Gemini and Claude Code sessions, and the one saved
from the Gemini session in the next Codex and the Claude Code sessions. Provenance names the agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _agent_fixtures import *  # noqa: F403  (the fixtures agent_releases, releases, sandbox)
from _agent_session import Sandbox
from _sandbox import system_text

pytestmark = pytest.mark.timeout(400)

EXTRACTION = "You are the memory extraction agent"
DEPLOY_BODY = "Deploys happen on Tuesdays between 10:00 and 12:00 UTC."
CODEX_REPLY = "Noted: the staging database host is db-stage-2 since the migration."
GEMINI_REPLY = "Noted: the release train leaves every Friday at 15:00."
STAGING = (
    "project_staging_db.md",
    "Staging database",
    "Staging runs on db-stage-2",
    "The staging database host is db-stage-2.",
)
TRAIN = (
    "project_release_train.md",
    "Release train",
    "Release train leaves Fridays",
    "The release train leaves every Friday at 15:00.",
)


def memory_file(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n\n{body}\n"


def rules(memory: Path) -> list[dict[str, Any]]:
    """Each CLI's replies, and an extraction agent that saves one memory per turn it reads."""

    def save(saved: tuple[str, str, str, str], reply: str) -> list[dict[str, Any]]:
        path, content = str(memory / saved[0]), memory_file(*saved[1:])
        when = {"system_has": EXTRACTION, "messages_have": reply}
        return [
            {"when": {**when, "tool_results": 0},
             "reply": {"tool_use": {"name": "Write", "input": {"file_path": path, "content": content}}}},
            {"when": when, "reply": {"text": "Saved."}},
        ]  # fmt: skip

    return [
        {"agent_prompt": "deploy the api", "reply": CODEX_REPLY},
        {"agent_prompt": "staging use", "reply": GEMINI_REPLY},
        {"agent_prompt": "release train leave", "reply": "It leaves on Fridays."},
        *save(STAGING, CODEX_REPLY),
        *save(TRAIN, GEMINI_REPLY),
        {"when": {"system_has": EXTRACTION}, "reply": {"text": "Nothing here is worth saving."}},
    ]


def everything(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False)


def test_a_memory_saved_through_one_agent_is_recalled_in_the_others(sandbox: Sandbox) -> None:
    memory = Path(sandbox.memdir_here("path").stdout.strip())
    log = sandbox.home / ".claude" / "memdir" / "logs" / "extract.log"
    claude = sandbox.claude is not None
    steps = [
        sandbox.memdir("add", "--type", "project", "--name", "Deploy window", "--description",
                       "Deploys only on Tuesday mornings", "--body", "-", stdin=DEPLOY_BODY + "\n"),
        sandbox.memdir("reindex"),
        sandbox.memdir("hooks", "install", "--agent", "codex"),
        sandbox.memdir("hooks", "install", "--agent", "gemini"),
        sandbox.memdir("doctor"),  # exits 1 when Codex says memdir's hooks are not trusted
        *([sandbox.memdir("hooks", "install")] if claude else []),
        sandbox.codex("When can we deploy the api?"),
        {"argv": [], "await_lines": {"path": str(log), "contains": STAGING[0], "count": 1}, "timeout": 30},
        sandbox.gemini("Which database host does staging use?"),
        {"argv": [], "await_lines": {"path": str(log), "contains": TRAIN[0], "count": 1}, "timeout": 30},
        sandbox.codex("When does the release train leave?"),
        *([sandbox.claude_code("Which host does staging use?"),
           sandbox.claude_code("When does the release train leave?")]
          if claude else []),
    ]  # fmt: skip
    outcome = sandbox.run(steps, rules(memory))
    logged = log.read_text(encoding="utf-8") if log.is_file() else "(no extract.log)"
    assert "Codex trusts the" in outcome.steps[2]["stdout"], outcome.describe(2)
    codex = outcome.bodies("/v1/responses")
    gemini = outcome.bodies(":streamGenerateContent")
    assert len(codex) == 2 and len(gemini) == 1, [r["path"] for r in outcome.requests]

    # (a) recall reached the model's request on a prompt, after the memory section and the index
    first = everything(codex[0]["input"])
    assert "# auto memory" in first and "Deploy window" in first and DEPLOY_BODY in first

    # (b) an extraction request carrying each turn's reply, without what memdir added to the turn
    extractions = [b for b in outcome.bodies("/v1/messages") if EXTRACTION in system_text(b)]
    for reply in (CODEX_REPLY, GEMINI_REPLY):
        holding = [everything(b["messages"]) for b in extractions if reply in everything(b["messages"])]
        assert holding, f"no extraction request carried {reply!r}\n{logged}"
        assert "# auto memory" not in holding[0] and "Memories saved in earlier" not in holding[0]
    assert (memory / STAGING[0]).is_file() and (memory / TRAIN[0]).is_file(), logged

    # (c) each agent's memory recalled in the others
    assert STAGING[3] in everything(gemini[0]["contents"])
    assert TRAIN[3] in everything(codex[1]["input"])
    if claude:
        staging, train = [everything(b["messages"]) for b in outcome.bodies("/v1/messages?beta") if b.get("tools")]
        assert STAGING[3] in staging and TRAIN[3] in train

    history = sandbox.memdir_here("history", "--json")
    assert history.returncode == 0, history.stderr
    by = {change["file"]: change["by"] for change in json.loads(history.stdout)}
    assert by[STAGING[0]].startswith("extract:codex:") and by[TRAIN[0]].startswith("extract:gemini:"), by
