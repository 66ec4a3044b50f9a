"""Process start-up: what one Claude Code hook event and one ``memdir recall`` cost, whole process.

Claude Code starts a fresh ``memdir`` process for every hook event, so every prompt a hooked user
types pays the interpreter start, memdir's imports, the configuration and the recall itself. This
script times exactly that, from outside, for stores of 200 and 2,000 memories laid out where Claude
Code keeps them (``<configHome>/projects/<project>/memory/``, default settings):

- each hook event (``session-start``, ``user-prompt-submit``, ``stop``, ``pre-compact``,
  ``session-end``; no model configured, so the background events decide and return);
- ``memdir recall QUERY``;
- with ``--agents``, the hooks Codex CLI and Gemini CLI run (``memdir hook --agent codex|gemini``:
  ``session-start``, which gives them the memory section and the index, and ``user-prompt-submit``),
  each with its CLI's input (Codex's turn id and model; Gemini's prompt carrying the session-start
  context in ``<hook_context>``), beside Claude Code's.

Every command runs 20 times, each run paired with a bare ``python -c pass``; the figure is the
median of the per-pair ratios (pairing keeps the ratio honest when the machine's speed drifts),
next to the median wall time.

Every process runs with compiled bytecode, as an installed memdir does (pip compiles it at
install time): the child environment drops ``PYTHONDONTWRITEBYTECODE`` and points
``PYTHONPYCACHEPREFIX`` at a private directory that the uncounted warm-up run fills, so the
figures never include compiling memdir's sources (which alone cost about as much as all the
imports) and nothing is written into the source tree. ``--importtime`` also prints the 15 slowest imports of the
UserPromptSubmit hook (``python -X importtime``). Results are printed as a table and written to
bench/results/startup.json. Run: ``python bench/startup.py [--runs 20] [--importtime]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

from recall_scale import build  # noqa: E402

EVENTS = ("session-start", "user-prompt-submit", "stop", "pre-compact", "session-end")
SIZES = (200, 2_000)


def memdir_argv() -> list[str]:
    """The console script next to this interpreter (what Claude Code runs), else ``-m memdir.cli``."""
    script = Path(sys.executable).with_name("memdir")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "memdir.cli"]


def wall(argv: list[str], stdin: str, env: dict[str, str], cwd: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return elapsed


def paired(argv: list[str], stdin_for: Any, env: dict[str, str], cwd: str, runs: int) -> dict[str, float]:
    bare = [sys.executable, "-c", "pass"]
    wall(argv, stdin_for(-1), env, cwd)  # warm the file cache; not counted
    ratios, times, bases = [], [], []
    for run in range(runs):
        base = wall(bare, "", env, cwd)
        took = wall(argv, stdin_for(run), env, cwd)
        time.sleep(0.1)  # the prompt hook's check after its answer (a fork) finishes before the next run
        ratios.append(took / base)
        times.append(took)
        bases.append(base)
    return {
        "ratio": statistics.median(ratios),
        "median_ms": statistics.median(times) * 1000,
        "bare_ms": statistics.median(bases) * 1000,
    }


def setup(workdir: Path, count: int) -> tuple[dict[str, str], str, str]:
    """A config home, a project and its memory directory filled with ``count`` memories."""
    from memdir.config import resolve_config

    home = workdir / f"claude-{count}"
    project = workdir / f"project-{count}"
    project.mkdir(parents=True)
    skip = ("MEMDIR_", "CLAUDE_", "ANTHROPIC_", "OPENAI_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env["CLAUDE_CONFIG_DIR"] = str(home)
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    config = resolve_config(str(project), env=env)
    _, queries = build(Path(config.memory_dir), count)
    transcript = workdir / f"transcript-{count}.jsonl"
    line = {"type": "user", "message": {"role": "user", "content": queries[0]}, "sessionId": "bench"}
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return env, str(project), queries[0]


def measure(count: int, workdir: Path, runs: int) -> dict[str, Any]:
    env, project, query = setup(workdir, count)
    transcript = str(workdir / f"transcript-{count}.jsonl")
    memdir = memdir_argv()
    out: dict[str, Any] = {"memories": count}
    for event in EVENTS:

        def stdin_for(run: int, event: str = event) -> str:
            data = {
                "session_id": f"bench-{event}-{run}",  # a new session each run: recall surfaces afresh
                "transcript_path": transcript,
                "cwd": project,
                "hook_event_name": event,
                "prompt": query,
                "source": "startup",
            }
            return json.dumps(data)

        out[event] = paired([*memdir, "hook", event], stdin_for, env, project, runs)
    out["recall"] = paired([*memdir, "recall", query], lambda run: "", env, project, runs)
    return out


AGENT_EVENTS = ("session-start", "user-prompt-submit")


def agent_input(agent: str, event: str, run: int, project: str, query: str, workdir: Path) -> str:
    """The JSON each CLI sends memdir's hook (a new session each run, so recall surfaces afresh)."""
    session = f"bench-{agent}-{event}-{run}"
    if agent == "codex":
        rollout = workdir / "codex" / f"rollout-2026-11-28T13-06-43-{session}.jsonl"
        data = {
            "session_id": session,
            "transcript_path": str(rollout),
            "cwd": project,
            "model": "gpt-5",
            "permission_mode": "default",
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        if event == "user-prompt-submit":
            data.update(hook_event_name="UserPromptSubmit", turn_id="t1", prompt=query)
        return json.dumps(data)
    if agent == "gemini":
        chat = workdir / "gemini" / f"session-2026-11-28T13-06-{session}.jsonl"
        data = {
            "session_id": session,
            "transcript_path": str(chat),
            "cwd": project,
            "timestamp": "t",
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        if event == "user-prompt-submit":
            context = "<hook_context># auto memory\n\nYou have a persistent memory made of files.</hook_context>"
            data.update(hook_event_name="BeforeAgent", prompt=f"{context}\n\n{query}")
        return json.dumps(data)
    return json.dumps({"session_id": session, "transcript_path": str(workdir / f"{session}.jsonl"), "cwd": project,
                       "hook_event_name": event, "prompt": query, "source": "startup"})  # fmt: skip


def measure_agents(count: int, workdir: Path, runs: int) -> dict[str, Any]:
    """The session-start and prompt hooks of each CLI, on the same store."""
    env, project, query = setup(workdir, count)
    memdir = memdir_argv()
    out: dict[str, Any] = {"memories": count}
    for agent in ("claude-code", "codex", "gemini"):
        words = [] if agent == "claude-code" else ["--agent", agent]
        for event in AGENT_EVENTS:

            def stdin_for(run: int, agent: str = agent, event: str = event) -> str:
                return agent_input(agent, event, run, project, query, workdir)

            out[f"{agent} {event}"] = paired([*memdir, "hook", *words, event], stdin_for, env, project, runs)
    return out


def importtime(workdir: Path) -> list[tuple[int, str]]:
    env, project, query = setup(workdir, 200)
    data = json.dumps({"session_id": "imp", "cwd": project, "prompt": query})
    argv = [sys.executable, "-X", "importtime", "-c", "from memdir.cli import main; main()"]
    for _ in range(2):  # the first run compiles the bytecode
        done = subprocess.run(
            [*argv, "hook", "user-prompt-submit"], input=data, env=env, cwd=project, capture_output=True, text=True
        )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split(":", 1)[1].split("|")
        rows.append((int(cumulative), name.rstrip()))
    return sorted(rows, reverse=True)[:15]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports of the hook")
    parser.add_argument("--label", default="", help="stored with the results (e.g. before / after)")
    parser.add_argument("--agents", action="store_true", help="only the hooks of Claude Code, Codex CLI and Gemini CLI")
    args = parser.parse_args()
    if args.agents:
        agents_table(args)
        return
    results = []
    with tempfile.TemporaryDirectory(prefix="memdir-startup-") as tmp:
        for count in SIZES:
            results.append(measure(count, Path(tmp) / str(count), args.runs))
        slow = importtime(Path(tmp) / "imp") if args.importtime else []
    names = [*EVENTS, "recall"]
    print(f"median of {args.runs} runs; ratio = wall time / bare `python -c pass` (paired), then median wall ms\n")
    print("| memories | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for r in results:
        cells = [f"{r[n]['ratio']:.1f}× ({r[n]['median_ms']:.0f} ms)" for n in names]
        print(f"| {r['memories']:,} | " + " | ".join(cells) + " |")
    print(f"\nbare interpreter: {statistics.median(r['recall']['bare_ms'] for r in results):.0f} ms")
    if slow:
        print("\nslowest imports of `memdir hook user-prompt-submit` (cumulative µs):")
        for cumulative, name in slow:
            print(f"{cumulative:>10,}  {name}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"label": args.label, "runs": args.runs, "results": results, "slowest_imports": slow}
    (RESULTS / "startup.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def agents_table(args: argparse.Namespace) -> None:
    """The --agents table, written to bench/results/startup-agents.json."""
    with tempfile.TemporaryDirectory(prefix="memdir-startup-") as tmp:
        results = [measure_agents(count, Path(tmp) / str(count), args.runs) for count in SIZES]
    names = [f"{agent} {event}" for agent in ("claude-code", "codex", "gemini") for event in AGENT_EVENTS]
    print(f"median of {args.runs} runs; ratio = wall time / bare `python -c pass` (paired), then median wall ms\n")
    print("| hook | " + " | ".join(f"{r['memories']:,} memories" for r in results) + " |")
    print("|---|" + "---|" * len(results))
    for name in names:
        cells = [f"{r[name]['ratio']:.1f}× ({r[name]['median_ms']:.0f} ms)" for r in results]
        print(f"| {name} | " + " | ".join(cells) + " |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"label": args.label, "runs": args.runs, "results": results}
    (RESULTS / "startup-agents.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
