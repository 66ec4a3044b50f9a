"""The everyday commands on a large store, as real processes: ``list``, ``doctor``, ``export``.

For each size (2,000, 20,000 and 100,000 memories by default: the synthetic stores of
``recall_scale.py``, written once under ``--stores`` and reused) this times, as whole processes
(start-up and imports included, what a person waits for), with the default settings (the derived
index on, recall over the whole store):

- ``memdir list`` (piped), first with a config home that has never seen the store (the index is
  built by the command), then warm;
- ``memdir doctor`` (checks only; ``bench/cli_scale.py`` times ``doctor --fix``);
- ``memdir export`` (JSON lines to a file).

Each figure is the median of ``--runs`` runs (the cold list: one run per fresh config home), with
milliseconds per memory beside it: a figure that stays flat as the store grows tenfold is linear,
one that grows tenfold with it is quadratic. The web view's list and search are timed by
``bench/ui.py --sizes``, a team push after a 1% change by ``bench/team_sync.py --push-sizes``.
Prints a table and writes bench/results/store_scale.json. Run: ``python bench/store_scale.py``.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_scale import store_for

RESULTS = Path(__file__).resolve().parent / "results"


def timed(argv: list[str], env: dict[str, str]) -> float:
    """Seconds of one whole process; a failure stops the benchmark."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):  # doctor exits 1 when it finds something to report
        raise SystemExit(f"{argv[-3:]} failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed


def measure(count: int, stores: Path, workdir: Path, runs: int) -> dict[str, Any]:
    root, _ = store_for(count, stores)
    memdir = [sys.executable, "-m", "memdir", "--project", str(workdir), "--memory-dir", str(root)]
    base = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    cold = []
    env: dict[str, str] = {}
    for run in range(runs):
        home = workdir / f"home-{run}"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir()
        env = {**base, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(workdir)}
        cold.append(timed([*memdir, "list"], env))
    out: dict[str, Any] = {"memories": count, "list_cold_s": statistics.median(cold)}
    commands = {
        "list": ["list"],
        "doctor": ["doctor"],
        "export": ["export", "-o", str(workdir / "export.jsonl")],
    }
    for name, args in commands.items():
        out[f"{name}_s"] = statistics.median(timed([*memdir, *args], env) for _ in range(runs))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,100000", help="comma-separated store sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--stores", type=Path, default=Path(tempfile.gettempdir()) / "memdir-scale-stores")
    parser.add_argument("--label", default="current", help="a name for this run in the JSON (before, after)")
    args = parser.parse_args()
    args.stores.mkdir(parents=True, exist_ok=True)
    rows = []
    print("| memories | list, never indexed s | list s | doctor s | export s | ms per memory: list / doctor / export |")
    print("|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="memdir-store-scale-") as tmp:
            row = measure(size, args.stores, Path(tmp), args.runs)
        rows.append(row)
        per = " / ".join(f"{1000 * row[f'{name}_s'] / size:.2f}" for name in ("list", "doctor", "export"))
        print(
            f"| {size:,} | {row['list_cold_s']:.1f} | {row['list_s']:.2f} | {row['doctor_s']:.2f} "
            f"| {row['export_s']:.2f} | {per} |",
            flush=True,
        )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "store_scale.json"
    previous = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    previous[args.label] = rows
    out.write_text(json.dumps(previous, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
