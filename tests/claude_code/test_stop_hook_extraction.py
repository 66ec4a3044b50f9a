"""Extraction after every turn of a session that stays open, started by memdir's Stop hook, every time.

The scenario (``_stop_turns``): SESSIONS fresh sessions of two turns each, in one sandbox per
release, with memdir's hooks installed and a model configured. Each turn's last reply must reach
the extraction model exactly once, and while the session is still open: not only at its end, by
the SessionEnd run. How long after the turn that takes is a figure of the benchmark
(``bench/stop_hook_extraction.py``), printed here in the terminal summary too but never asserted:
it measures the machine's load as much as memdir.

Why ten sessions of two turns rather than twenty turns of one session: on a session's first turn
2.1.88 runs the Stop hook before the transcript file exists, on later turns before the turn's reply
is in it; both races need repeating, and a session costs a few seconds to start.
"""

from __future__ import annotations

import pytest
from _stop_turns import TURNS, extract_log, rules, steps, turns_of

from conftest import Sandbox, report_timing

pytestmark = pytest.mark.timeout(600)

SESSIONS = 10


def test_every_turn_of_an_open_session_reaches_the_extraction_model_once_while_it_is_open(sandbox: Sandbox) -> None:
    version = sandbox.release.version
    outcome = sandbox.run(steps(sandbox, SESSIONS), rules(SESSIONS))
    log = extract_log(sandbox)
    logged = log.read_text(encoding="utf-8") if log.is_file() else "(no extract.log)"

    seen = turns_of(outcome, SESSIONS)
    for turn in seen:
        delay = turn.delay
        report_timing(
            f"Claude Code {version}, session {turn.session + 1:2d}, turn {turn.turn + 1}: first extraction request "
            + (f"{delay:5.2f} s after the turn ended" if delay is not None else "never")
        )
    unended = [f"{t.session}.{t.turn}" for t in seen if t.ended is None]
    assert not unended, f"turns that never ended: {unended}"
    repeated = [f"{t.session}.{t.turn} ({t.requests} times)" for t in seen if t.requests > 1]
    assert not repeated, f"turns sent to the extraction model more than once: {repeated}\n{logged}"
    late = [f"{t.session}.{t.turn}" for t in seen if not t.while_open]
    assert not late, f"{len(late)} of {len(seen)} turns not extracted while their session was open: {late}\n{logged}"

    lines = logged.splitlines()
    assert sum(" hook stop [pid " in line for line in lines) == SESSIONS * TURNS, logged
    assert sum(" hook session-end [pid " in line for line in lines) == SESSIONS, logged
    done = [line for line in lines if " extract [pid " in line]
    assert len(done) == SESSIONS * (TURNS + 1), logged
    assert all(" read " in line and "(last reply msg_" in line and "; wrote " in line for line in done), logged
