"""The CLI a person runs on a large store: ``memdir list`` and ``memdir doctor --fix``, as real processes.

For each size this builds a directory of memories (short name, one-line description, a few lines
of body) and times, as whole processes (start-up and imports included, what a person waits for):

- ``memdir list`` over N memories (plain output, piped);
- ``memdir doctor --fix`` when none of the N memories has its ``MEMORY.md`` line (the repair
  writes N index lines), on a fresh copy each run. The config home pins Claude Code 2.1.200
  (``memdir.claudeCodeVersion``): from 2.1.210 an index longer than Claude Code loads is
  refused, and the repair would stop at 200 lines instead of writing N.

Medians of ``--runs`` runs (default 5; doctor at 10,000 runs 3 times unless ``--runs`` says
otherwise). Prints a table and writes bench/results/cli_scale.json. Run:
``python bench/cli_scale.py [--list-sizes 2000 20000] [--doctor-sizes 1000 10000] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TYPES = ("user", "feedback", "project", "reference")


def build_store(root: Path, n: int) -> None:
    """N memory files with no index lines (as a copy from another machine, or files written by hand)."""
    root.mkdir(parents=True)
    for i in range(n):
        kind = TYPES[i % len(TYPES)]
        text = (
            f"---\nname: Note {i}\ndescription: How the service handles case {i} of the release checklist\n"
            f"type: {kind}\n---\n\nWhen case {i} comes up, run the checklist step {i % 37} first.\n"
            "**Why:** it broke once.\n"
        )
        (root / f"{kind}_note_{i}.md").write_text(text, encoding="utf-8")


def timed(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list-sizes", type=int, nargs="*", default=[2_000, 20_000])
    parser.add_argument("--doctor-sizes", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--label", default="current", help="A name for this run in the JSON (e.g. before, after).")
    options = parser.parse_args()
    memdir = [sys.executable, "-m", "memdir"]
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="memdir-cli-bench-") as tmp:
        home = Path(tmp, "home")
        home.mkdir()
        (home / "settings.json").write_text(json.dumps({"memdir": {"claudeCodeVersion": "2.1.200"}}), encoding="utf-8")
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home), "HOME": tmp}
        for n in options.list_sizes:
            store = Path(tmp, f"list-{n}")
            build_store(store, n)
            runs = options.runs or 5
            times = [timed([*memdir, "--memory-dir", str(store), "list"], env) for _ in range(runs)]
            rows.append({"command": "list", "memories": n, "runs": runs, "median_s": statistics.median(times)})
            shutil.rmtree(store)
        for n in options.doctor_sizes:
            pristine = Path(tmp, f"doctor-{n}")
            build_store(pristine, n)
            runs = options.runs or (3 if n >= 10_000 else 5)
            times = []
            for run in range(runs):
                copy = Path(tmp, f"doctor-{n}-{run}")
                shutil.copytree(pristine, copy)
                times.append(timed([*memdir, "--memory-dir", str(copy), "doctor", "--fix"], env))
                lines = (copy / "MEMORY.md").read_text(encoding="utf-8").count("\n")
                assert lines == n, f"doctor --fix wrote {lines} index lines for {n} memories"
                shutil.rmtree(copy)
            rows.append({"command": "doctor --fix", "memories": n, "runs": runs, "median_s": statistics.median(times)})
    print(f"{'command':<14} {'memories':>9} {'runs':>5} {'median s':>10}")
    for row in rows:
        print(f"{row['command']:<14} {row['memories']:>9,} {row['runs']:>5} {row['median_s']:>10.2f}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "cli_scale.json"
    previous = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    previous[options.label] = rows
    out.write_text(json.dumps(previous, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
