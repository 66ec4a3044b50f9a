"""The everyday commands on a large store, as real processes: ``list``, ``doctor``, ``export``.

For each size (2,000, 20,000 and 100,000 memories by default: the synthetic stores of
``recall_scale.py``, written once under ``--stores`` and reused) this times, as whole processes
(start-up and imports included, what a person waits for), with the default settings (the derived
index on, recall over the whole store):

- ``memdir list`` (piped), first with a config home that has never seen the store (the index is
  built by the command), then warm;
- ``memdir doctor`` (checks only; ``bench/cli_scale.py`` times ``doctor --fix``);
- ``memdir export`` (JSON lines to a file).

Each figure is the median of ``--runs`` runs (the cold list: one run per fresh config home), wall
time and CPU time (user + system of the process alone: on a shared machine the steadier figure),
with CPU milliseconds per memory beside them: a figure that stays flat as the store grows tenfold
is linear, one that grows tenfold with it is quadratic. The warm commands share a config home kept
under ``--stores`` (its index is built once). ``--commands`` picks what to time. The web view's
list and search are timed by ``bench/ui.py --sizes``, a team push after a 1% change by
``bench/team_sync.py --push-sizes``.
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


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds of one whole process, wall and CPU (user + system, the kernel's accounting of that
    child alone: on a shared machine the CPU is the steadier figure); a failure stops the benchmark."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # doctor exits 1 when it finds something to report
        raise SystemExit(f"{argv[-3:]} failed ({code}): {err[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def measure(count: int, stores: Path, workdir: Path, runs: int, commands: list[str]) -> dict[str, Any]:
    root, _ = store_for(count, stores)
    memdir = [sys.executable, "-m", "memdir", "--project", str(workdir), "--memory-dir", str(root)]
    base = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    home = stores / f"home-store-scale-{count}"  # kept: its index is built once
    home.mkdir(exist_ok=True)
    env = {**base, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(workdir)}
    out: dict[str, Any] = {"memories": count}
    if "list-cold" in commands:
        cold = []
        for run in range(runs):
            fresh = workdir / f"home-{run}"
            shutil.rmtree(fresh, ignore_errors=True)
            fresh.mkdir()
            cold.append(timed([*memdir, "list"], {**base, "CLAUDE_CONFIG_DIR": str(fresh), "HOME": str(workdir)}))
        out["list_cold_s"] = statistics.median(wall for wall, _ in cold)
        out["list_cold_cpu_s"] = statistics.median(cpu for _, cpu in cold)
    timed([*memdir, "reindex"], env)
    arguments = {
        "list": ["list"],
        "doctor": ["doctor"],
        "export": ["export", "-o", str(workdir / "export.jsonl")],
    }
    for name in (name for name in arguments if name in commands):
        samples = [timed([*memdir, *arguments[name]], env) for _ in range(runs)]
        out[f"{name}_s"] = statistics.median(wall for wall, _ in samples)
        out[f"{name}_cpu_s"] = statistics.median(cpu for _, cpu in samples)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,100000", help="comma-separated store sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--stores", type=Path, default=Path(tempfile.gettempdir()) / "memdir-scale-stores")
    parser.add_argument("--label", default="current", help="a name for this run in the JSON (before, after)")
    parser.add_argument("--commands", default="list-cold,list,doctor,export", help="which commands to time")
    parser.add_argument("--out", type=Path, default=RESULTS / "store_scale.json")
    args = parser.parse_args()
    commands = args.commands.split(",")
    args.stores.mkdir(parents=True, exist_ok=True)
    rows = []
    print(
        "| memories | list, never indexed s | list s (CPU) | doctor s (CPU) | export s (CPU) "
        "| CPU ms per memory: list / doctor / export |"
    )
    print("|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="memdir-store-scale-") as tmp:
            row = measure(size, args.stores, Path(tmp), args.runs, commands)
        rows.append(row)
        names = ("list", "doctor", "export")
        per = " / ".join(f"{1000 * row[f'{n}_cpu_s'] / size:.3f}" if f"{n}_s" in row else "-" for n in names)
        cells = [f"{row['list_cold_s']:.1f}" if "list_cold_s" in row else "-"]
        cells += [f"{row[f'{n}_s']:.2f} ({row[f'{n}_cpu_s']:.2f})" if f"{n}_s" in row else "-" for n in names]
        print(f"| {size:,} | {' | '.join(cells)} | {per} |", flush=True)
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    previous = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    previous[args.label] = rows
    out.write_text(json.dumps(previous, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
