"""How long after a turn memdir's Stop hook gets that turn to the extraction model, in the real Claude Code.

The scenario is the one ``tests/claude_code/test_stop_hook_extraction.py`` asserts behaviour on
(``tests/claude_code/_stop_turns.py``): memdir's hooks installed, a model configured, ``--sessions``
fresh sessions of two turns each kept open on stdin (``--input-format stream-json``), against a
scripted Messages API inside a loopback-only network namespace (root and ``unshare`` needed; the CLI
is installed from npm into the same cache as the tests'). For each release (the oldest supported and
the newest on npm) it prints and writes (bench/results/stop_hook_extraction.json): how many turns
reached the extraction model while their session was open, and the delay from a turn's end to its
first extraction request (median, 90th percentile, maximum), for a session's first turns and its
later ones apart, since the two race differently with Claude Code's writes of the transcript.

The delay is mostly the start of two Python processes (the hook, then ``memdir extract``) and the
extraction's wait for the turn in the transcript; on a loaded machine it grows with the load, which
is why the test does not bound it. Run: ``python bench/stop_hook_extraction.py [--sessions 10]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE.parent / "tests" / "claude_code"))

from _install import OLDEST, Unavailable, default_cache, install, newest_version  # noqa: E402
from _stop_turns import TurnSeen, rules, steps, turns_of  # noqa: E402

from conftest import Sandbox  # noqa: E402


def summary(seen: list[TurnSeen]) -> dict[str, Any]:
    delays = sorted(t.delay for t in seen if t.delay is not None)

    def cut(q: float) -> float | None:
        return round(delays[min(len(delays) - 1, int(q * len(delays)))], 2) if delays else None

    return {
        "turns": len(seen),
        "while_open": sum(t.while_open for t in seen),
        "repeated": sum(t.requests > 1 for t in seen),
        "median_s": round(statistics.median(delays), 2) if delays else None,
        "p90_s": cut(0.9),
        "max_s": round(delays[-1], 2) if delays else None,
    }


def measure(version: str, sessions: int, cache: Path) -> dict[str, Any]:
    release = install(version, cache)
    with tempfile.TemporaryDirectory(prefix="memdir-stop-bench-") as root:
        sandbox = Sandbox(release, Path(root))
        seen = turns_of(sandbox.run(steps(sandbox, sessions), rules(sessions)), sessions)
    return {
        "version": version,
        "all": summary(seen),
        "first turns": summary([t for t in seen if t.turn == 0]),
        "later turns": summary([t for t in seen if t.turn > 0]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    args = parser.parse_args()
    cache = default_cache()
    try:
        versions = [OLDEST, newest_version(cache)]
    except Unavailable as exc:
        print(f"skipped: {exc}")
        return 0
    rows = [measure(version, args.sessions, cache) for version in versions]
    print(f"{'release':>9} {'turns':>14} {'while open':>10} {'median s':>9} {'p90 s':>7} {'max s':>7}")
    for row in rows:
        for part in ("first turns", "later turns", "all"):
            s = row[part]
            print(
                f"{row['version']:>9} {part:>14} {s['while_open']:>4}/{s['turns']:<5} "
                f"{s['median_s']!s:>9} {s['p90_s']!s:>7} {s['max_s']!s:>7}"
            )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "stop_hook_extraction.json"
    out.write_text(json.dumps({"sessions": args.sessions, "releases": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
