"""Extraction after every turn of a session that stays open, started by memdir's Stop hook, every time.

An SDK host or the interactive app keeps a session open (``--input-format stream-json``), so the
asynchronous Stop hook is the only thing that extracts while it lasts. Claude Code can run that hook
before it has written the turn to the transcript (2.1.88 writes through a queue flushed every
100 ms; on a session's first turn the file does not exist yet), which once made extraction wait for
the end of the session. So the scenario is repeated: SESSIONS fresh sessions of TURNS turns each
(the first turn of a session and a later one race differently), in one sandbox per release, and
each turn must lead to an extraction request holding its last reply within LIMIT seconds of its
end. Every delay is printed in the terminal summary, passing or not. A turn follows the one before
as soon as it ended, without waiting for its extraction; a session closes once its last turn's
extraction request came, so its Stop run may still be going when it ends. No turn may reach the
model twice: the SessionEnd run must find nothing new. The scripted extraction agent saves nothing.

Why ten sessions of two turns rather than twenty turns of one session: on a session's first turn
2.1.88 runs the Stop hook before the transcript file exists, on later turns before the turn's reply
is in it; both races need repeating, and a session costs a few seconds to start.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _sandbox import system_text

from conftest import Sandbox, report_timing

pytestmark = pytest.mark.timeout(420)

SESSIONS = 10
TURNS = 2
LIMIT = 10.0
EXTRACTION = "You are the memory extraction agent"
MODEL = "anthropic:claude-sonnet-4-6"


def prompt(run: int, turn: int) -> str:
    return f"I always squash-merge my pull requests (session {run}, turn {turn})."


def reply(run: int, turn: int) -> str:
    return f"Noted: squash merges ({run}.{turn})."


def rules() -> list[dict[str, Any]]:
    """The extraction agent saves nothing; each turn gets its own reply (later turns' rules first:
    a later request also holds the earlier prompts)."""
    answers = [
        {"when": {"has_tools": True, "messages_have": prompt(run, turn)}, "reply": {"text": reply(run, turn)}}
        for run in reversed(range(SESSIONS))
        for turn in reversed(range(TURNS))
    ]
    return [{"when": {"system_has": EXTRACTION}, "reply": {"text": "Nothing here is worth saving."}}, *answers]


def open_session(sandbox: Sandbox, run: int) -> dict[str, Any]:
    """A session fed its turns one after the other, each as soon as the last ended; it stays open
    until the last turn's extraction request came (or LIMIT passed), then closes."""
    argv = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    turns: list[dict[str, Any]] = [
        {"stdin": json.dumps({"type": "user", "message": {"role": "user", "content": prompt(run, turn)}})}
        for turn in range(TURNS)
    ]
    turns[-1]["await"] = {"system_has": EXTRACTION, "messages_have": reply(run, TURNS - 1)}
    turns[-1]["within"] = LIMIT
    step = sandbox.claude_raw(*argv)
    return {**step, "turns": turns, "timeout": 90, "env": {"MEMDIR_MODEL": MODEL}}


def test_every_turn_of_an_open_session_is_extracted_within_seconds_by_the_stop_hook(sandbox: Sandbox) -> None:
    version = sandbox.release.version
    log = sandbox.home / ".claude" / "memdir" / "logs" / "extract.log"
    runs = SESSIONS * (TURNS + 1)  # a Stop run per turn and a SessionEnd run per session
    steps = [
        sandbox.memdir("hooks", "install", "--scope", "user"),
        *(open_session(sandbox, run) for run in range(SESSIONS)),
        {"argv": [], "await_lines": {"path": str(log), "contains": " extract [pid ", "count": runs}, "timeout": 60},
    ]
    outcome = sandbox.run(steps, rules())
    logged = log.read_text(encoding="utf-8") if log.is_file() else "(no extract.log)"
    bodies = [(r["at"], r["body"] or {}) for r in outcome.requests]
    extractions = [(at, json.dumps(body["messages"])) for at, body in bodies if EXTRACTION in system_text(body)]

    late = []
    for run in range(SESSIONS):
        session = outcome.step(run + 1)
        assert len(session["turns"]) == TURNS and all(t["ended"] for t in session["turns"]), outcome.describe(run + 1)
        for turn, seen in enumerate(session["turns"]):
            holding = [at for at, sent in extractions if reply(run, turn) in sent]
            assert len(holding) <= 1, f"the turn {run}.{turn} was sent to the model {len(holding)} times\n{logged}"
            delay = holding[0] - seen["ended"] if holding else None
            report_timing(
                f"Claude Code {version}, session {run + 1:2d}, turn {turn + 1}: first extraction request "
                + (f"{delay:5.2f} s after the turn ended" if delay is not None else "never")
            )
            if delay is None or delay > LIMIT:
                late.append(f"{run}.{turn}: {'never' if delay is None else f'{delay:.2f} s'}")
    assert not late, f"{len(late)} of {SESSIONS * TURNS} turns not extracted within {LIMIT:g} s: {late}\n{logged}"

    lines = logged.splitlines()
    assert sum(" hook stop [pid " in line for line in lines) == SESSIONS * TURNS, logged
    assert sum(" hook session-end [pid " in line for line in lines) == SESSIONS, logged
    done = [line for line in lines if " extract [pid " in line]
    assert len(done) == runs, logged
    assert all(" read " in line and "(last reply msg_" in line and "; wrote " in line for line in done), logged
