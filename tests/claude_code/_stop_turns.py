"""The open-session scenario of the asynchronous Stop hook, shared by its test and its benchmark.

An SDK host or the interactive app keeps a session open (``--input-format stream-json``), so the
asynchronous Stop hook is the only thing that extracts while it lasts. Claude Code can run that hook
before it has written the turn to the transcript (2.1.88 writes through a queue flushed every
100 ms; on a session's first turn the file does not exist yet), which once made extraction wait for
the end of the session. So the scenario is repeated: ``sessions`` fresh sessions of TURNS turns each
(the first turn of a session and a later one race differently). A turn follows the one before as
soon as it ended, without waiting for its extraction; a session closes once every turn's extraction
request came (or, should one never come, after OPEN_AT_MOST seconds: a bound on a hang, not on
speed), so its Stop run may still be going when it ends. The scripted extraction agent saves nothing.

:func:`turns_of` reads each turn's extraction requests out of the outcome: how many there were, and
when the first came against the turn's end and the session's close. The test asserts on the count
and the order; the benchmark (``bench/stop_hook_extraction.py``) reports the delays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from _sandbox import system_text

from conftest import Outcome, Sandbox

TURNS = 2
OPEN_AT_MOST = 60.0
EXTRACTION = "You are the memory extraction agent"
MODEL = "anthropic:claude-sonnet-4-6"


def prompt(run: int, turn: int) -> str:
    return f"I always squash-merge my pull requests (session {run}, turn {turn})."


def reply(run: int, turn: int) -> str:
    return f"Noted: squash merges ({run}.{turn})."


def rules(sessions: int) -> list[dict[str, Any]]:
    """The extraction agent saves nothing; each turn gets its own reply (later turns' rules first:
    a later request also holds the earlier prompts)."""
    answers = [
        {"when": {"has_tools": True, "messages_have": prompt(run, turn)}, "reply": {"text": reply(run, turn)}}
        for run in reversed(range(sessions))
        for turn in reversed(range(TURNS))
    ]
    return [{"when": {"system_has": EXTRACTION}, "reply": {"text": "Nothing here is worth saving."}}, *answers]


def open_session(sandbox: Sandbox, run: int) -> dict[str, Any]:
    """A session fed its turns one after the other, each as soon as the last ended; after its last
    turn it stays open until every turn's extraction request came, then closes."""
    argv = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    turns: list[dict[str, Any]] = [
        {"stdin": json.dumps({"type": "user", "message": {"role": "user", "content": prompt(run, turn)}})}
        for turn in range(TURNS)
    ]
    turns[-1]["await"] = [{"system_has": EXTRACTION, "messages_have": reply(run, turn)} for turn in range(TURNS)]
    turns[-1]["within"] = OPEN_AT_MOST
    step = sandbox.claude_raw(*argv)
    return {**step, "turns": turns, "timeout": int(OPEN_AT_MOST) + 60, "env": {"MEMDIR_MODEL": MODEL}}


def extract_log(sandbox: Sandbox) -> Any:
    return sandbox.home / ".claude" / "memdir" / "logs" / "extract.log"


def steps(sandbox: Sandbox, sessions: int) -> list[dict[str, Any]]:
    """Install the hooks, run the sessions, then wait for every extraction run to log its line
    (a Stop run per turn and a SessionEnd run per session)."""
    runs = sessions * (TURNS + 1)
    done = {"path": str(extract_log(sandbox)), "contains": " extract [pid ", "count": runs}
    return [
        sandbox.memdir("hooks", "install", "--scope", "user"),
        *(open_session(sandbox, run) for run in range(sessions)),
        {"argv": [], "await_lines": done, "timeout": 60},
    ]


@dataclass(frozen=True)
class TurnSeen:
    """One turn as the scripted model saw it: its extraction requests and when they came."""

    session: int
    turn: int
    requests: int  # extraction requests that held the turn's reply
    ended: float | None  # when the turn's result line came
    first: float | None  # when the first of those requests came
    closed: float  # when the session's stdin was closed

    @property
    def delay(self) -> float | None:
        """Seconds from the turn's end to its first extraction request."""
        return None if self.first is None or self.ended is None else self.first - self.ended

    @property
    def while_open(self) -> bool:
        return self.first is not None and self.first < self.closed


def turns_of(outcome: Outcome, sessions: int) -> list[TurnSeen]:
    bodies = [(r["at"], r["body"] or {}) for r in outcome.requests]
    extractions = [(at, json.dumps(body["messages"])) for at, body in bodies if EXTRACTION in system_text(body)]
    seen = []
    for run in range(sessions):
        session = outcome.step(run + 1)
        for turn in range(TURNS):
            holding = [at for at, sent in extractions if reply(run, turn) in sent]
            turns = session.get("turns", [])
            ended = turns[turn]["ended"] if turn < len(turns) else None
            seen.append(TurnSeen(run, turn, len(holding), ended, min(holding, default=None), session["closing"]))
    return seen
