"""The web view at scale: time to the first byte-complete render of the list and of a search.

For 2,000 and 20,000 synthetic memories by default (the stores of ``recall_scale.py``, written
once under ``--stores`` and reused; ``--sizes 2000,20000,100000`` for the largest) this starts
``memdir ui --no-browser`` as a real process, signs in with the printed address, and times whole
HTTP requests from a client on 127.0.0.1:

- the first list page and the first search of the process (cold: the scan reads every header,
  the ranker analyses every memory);
- then the median and p95 of 20 requests each: the list's first page, a search (20 different
  queries), and a search filtered by type.

Each size is measured twice: through the derived SQLite index (the web view's default; its first
request builds the index from nothing) and with the plain directory scan (settings key
``memdir.derivedIndex: false``; ``--modes index`` skips it). The table gives milliseconds per
memory beside each median: flat as the store grows is linear. Results are printed as a table and
written to bench/results/ui.json. Run: ``python bench/ui.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_scale import store_for

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
REPEATS = 20


def timed_get(client: httpx.Client, path: str, params: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    response = client.get(path, params=params)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise SystemExit(f"GET {path} {params} answered {response.status_code}: {response.text[:300]}")
    return elapsed


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"median_ms": statistics.median(ordered), "p95_ms": ordered[int(0.95 * (len(ordered) - 1))]}


def measure(root: Path, project: Path, queries: list[str], home: Path) -> dict[str, Any]:
    command = [sys.executable, "-m", "memdir", "--project", str(project), "--memory-dir", str(root), "ui"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    argv = [*command, "--no-browser"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip()
            base = url.split("/?", 1)[0]
            with httpx.Client(base_url=base, timeout=600) as client:
                client.get(url)  # the tokened address: sets the cookie
                first_list = timed_get(client, "/")
                first_search = timed_get(client, "/", {"q": queries[0]})
                lists = [timed_get(client, "/") for _ in range(REPEATS)]
                searches = [timed_get(client, "/", {"q": q}) for q in queries[1 : REPEATS + 1]]
                filtered = [timed_get(client, "/", {"q": q, "type": "feedback"}) for q in queries[1 : REPEATS + 1]]
        finally:
            process.terminate()
            process.wait(timeout=60)
    return {
        "first_list_ms": first_list,
        "first_search_ms": first_search,
        "list": summary(lists),
        "search": summary(searches),
        "search_filtered": summary(filtered),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="2000,20000", help="comma-separated store sizes")
    parser.add_argument("--modes", default="index,scan", help="index (derived index), scan (plain directory)")
    parser.add_argument("--stores", type=Path, default=Path(tempfile.gettempdir()) / "memdir-scale-stores")
    args = parser.parse_args()
    modes = args.modes.split(",")
    args.stores.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"repeats": REPEATS, "sizes": {}}
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="memdir-bench-ui-") as tmp:
            work = Path(tmp)
            root, queries = store_for(size, args.stores)
            home = work / "home"
            home.mkdir()
            indexed = work / "indexed"
            indexed.mkdir()
            plain = work / "plain"
            (plain / ".claude").mkdir(parents=True)
            settings = {"memdir": {"derivedIndex": False}}
            (plain / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
            projects = {"index": indexed, "scan": plain}
            results["sizes"][str(size)] = {mode: measure(root, projects[mode], queries, home) for mode in modes}
    print(
        f"{'memories':>9} {'store':>6} {'1st list':>9} {'1st search':>11} {'list p50':>9} {'p95':>7}"
        f" {'search p50':>11} {'p95':>7} {'filtered p50':>13} {'µs/memory: list, search':>24}"
    )
    for size, modes in results["sizes"].items():
        for mode, row in modes.items():
            print(
                f"{int(size):>9,} {mode:>6} {row['first_list_ms']:>7.0f}ms {row['first_search_ms']:>9.0f}ms"
                f" {row['list']['median_ms']:>7.1f}ms {row['list']['p95_ms']:>5.1f}ms"
                f" {row['search']['median_ms']:>9.1f}ms {row['search']['p95_ms']:>5.1f}ms"
                f" {row['search_filtered']['median_ms']:>11.1f}ms"
                f" {1000 * row['list']['median_ms'] / int(size):>12.2f},"
                f" {1000 * row['search']['median_ms'] / int(size):.2f}"
            )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ui.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {RESULTS / 'ui.json'}")


if __name__ == "__main__":
    main()
