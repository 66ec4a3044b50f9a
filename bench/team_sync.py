"""Team-memory sync benchmark: push cost, concurrent pushers, history growth, server throughput.

    python bench/team_sync.py [--postgres URL] [--quick] [--runs N] [--parts push,concurrent,history,throughput]

Every timed figure is the median of ``--runs`` repeated runs (default 3), each on a fresh database;
database sizes come from one run, since a fixed sequence of writes gives the same size every time.
Part 1: first push, then a push after changing 1% of the files, for 1,000 and 10,000 files
(bytes sent against the bytes of the changed files and against the total, batches, seconds),
against `memdir team serve` on SQLite.
Part "base" (``--parts base``): the recorded base alone, CPU seconds, for a push of a 1% change
(one update per batch) and a first pull (one update per 25 keys), at ``--push-sizes``.
Part 2: 20 concurrent pushers, each its own process pushing its own 5 files to one repository:
how many succeed, median and p95 push time (timed inside each process, so interpreter start-up
is left out).
Part 3: database size after 10,000 writes (100 keys, 100 writes each, ~1 KB per entry), SQLite
and PostgreSQL.
Part 4: requests/s of `GET ?view=hashes` and of small PUTs from 8 client threads, with SQLite,
with PostgreSQL, and with two server processes on one PostgreSQL (PostgreSQL rows need
--postgres or MEMDIR_TEST_POSTGRES). Prints tables and writes bench/results/team_sync.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from memdir.server.storage import open_storage
from memdir.team.client import TeamClient, TeamEndpoint
from memdir.team.protocol import API_PATH
from memdir.team.push import push
from memdir.team.state import SyncState

REPO = "bench/widgets"
THREADS = 8
_RUNNING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


@contextmanager
def serve(database_url: str) -> Iterator[str]:
    argv = [sys.executable, "-c", "from memdir.cli import main; main()", "team", "serve", "--port", "0"]
    process = subprocess.Popen(
        [*argv, "--db", database_url, "--max-entries", "100000"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert process.stderr is not None
    try:
        for line in process.stderr:
            found = _RUNNING.search(line)
            if found:
                threading.Thread(target=process.stderr.read, daemon=True).start()  # keep draining the log
                yield f"http://127.0.0.1:{found.group(1)}"
                return
        raise RuntimeError("server did not start")
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    import psycopg

    name = "memdir_bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield admin_url.rpartition("/")[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def token_for(database_url: str) -> str:
    storage = open_storage(database_url)
    try:
        return storage.create_token(["*"])
    finally:
        storage.close()


def push_rows(files: int, workdir: Path) -> list[dict[str, object]]:
    workdir = workdir / f"push-{files}-{uuid.uuid4().hex[:6]}"  # a fresh database and clone for every run
    workdir.mkdir()
    database = f"sqlite:///{workdir / 'push.db'}"
    token = token_for(database)
    team = workdir / f"team-{files}"
    for n in range(files):
        path = team / f"topic{n % 50:02}" / f"note{n:05}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: note {n}\ntype: project\n---\n" + f"fact {n} " * 120 + "\n", encoding="utf-8")
    total = sum(p.stat().st_size for p in team.rglob("*.md"))
    rows: list[dict[str, object]] = []
    with serve(database) as url, TeamClient(TeamEndpoint(url, token, REPO)) as client:
        state = SyncState()
        for label in ("first push", "1% changed"):
            changed = total
            if label == "1% changed":
                changed = 0
                for n in range(0, files, 100):
                    path = team / f"topic{n % 50:02}" / f"note{n:05}.md"
                    path.write_text(path.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
                    changed += path.stat().st_size
            started = time.perf_counter()
            result = push(client, state, str(team))
            elapsed = time.perf_counter() - started
            rows.append(
                {
                    "files": files,
                    "push": label,
                    "uploaded": result.uploaded,
                    "bytes_sent": result.bytes_sent,
                    "changed_bytes": changed,
                    "sent_per_changed": round(result.bytes_sent / changed, 3),
                    "total_bytes": total,
                    "sent_pct": round(100 * result.bytes_sent / total, 2),
                    "batches": result.batches,
                    "seconds": round(elapsed, 3),
                }
            )
    return rows


def hammer(urls: list[str], token: str, kind: str, seconds: float) -> float:
    """Requests per second from THREADS clients spread over ``urls`` for ``seconds``."""
    counts = [0] * THREADS
    deadline = time.perf_counter() + seconds
    headers = {"Authorization": f"Bearer {token}"}

    def run(n: int) -> None:
        with httpx.Client(base_url=urls[n % len(urls)], headers=headers, timeout=30) as http:
            i = 0
            while time.perf_counter() < deadline:
                if kind == "hashes GET":
                    response = http.get(API_PATH, params={"repo": REPO, "view": "hashes"})
                else:
                    key = f"t{n}/k{i % 200}.md"
                    response = http.put(API_PATH, params={"repo": REPO}, json={"entries": {key: f"value {i}\n"}})
                assert response.status_code == 200, response.text
                counts[n] += 1
                i += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=run, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.perf_counter() - started)


def throughput_rows(workdir: Path, postgres: str | None, seconds: float) -> list[dict[str, object]]:
    setups: list[tuple[str, str | None, int]] = [
        ("SQLite, 1 process", f"sqlite:///{workdir / f'tp-{uuid.uuid4().hex[:6]}.db'}", 1)
    ]
    if postgres:
        setups += [("PostgreSQL, 1 process", None, 1), ("PostgreSQL, 2 processes", None, 2)]
    rows: list[dict[str, object]] = []
    for label, database, processes in setups:
        with ExitStack() as stack:
            url = database or stack.enter_context(postgres_database(postgres or ""))
            token = token_for(url)
            servers = [stack.enter_context(serve(url)) for _ in range(processes)]
            seed = httpx.put(
                servers[0] + API_PATH,
                params={"repo": REPO},
                json={"entries": {f"seed/{n}.md": f"seed {n}\n" for n in range(500)}},
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            )
            assert seed.status_code == 200, seed.text
            for kind in ("hashes GET", "small PUT"):
                rate = hammer(servers, token, kind, seconds)
                rows.append({"setup": label, "request": kind, "requests_per_s": round(rate, 1)})
    return rows


_PUSHER = """
import json, sys, time
from memdir.team.client import TeamClient, TeamEndpoint
from memdir.team.state import SyncState
from memdir.team.push import push
url, token, repo, team = sys.argv[1:5]
sys.stdin.readline()  # every pusher starts on the same signal
started = time.perf_counter()
try:
    with TeamClient(TeamEndpoint(url, token, repo)) as client:
        result = push(client, SyncState(), team)
    ok = result.uploaded == 5
except Exception as exc:  # the figure is how many fail, whatever the error
    ok = False
print(json.dumps({"ok": ok, "seconds": time.perf_counter() - started}))
"""


def concurrent_rows(workdir: Path, pushers: int = 20) -> list[dict[str, object]]:
    """``pushers`` processes push their own files to one repository at the same moment."""
    database = f"sqlite:///{workdir / f'concurrent-{uuid.uuid4().hex[:6]}.db'}"
    token = token_for(database)
    with serve(database) as url:
        processes = []
        for n in range(pushers):
            team = workdir / f"pusher-{uuid.uuid4().hex[:6]}" / "team"
            team.mkdir(parents=True)
            for j in range(5):
                (team / f"p{n:02}-note{j}.md").write_text(f"pusher {n} note {j}\n" * 20, encoding="utf-8")
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", _PUSHER, url, token, REPO, str(team)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        time.sleep(3.0)  # let every interpreter finish importing before the common start
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        outcomes = [json.loads(process.communicate(timeout=600)[0]) for process in processes]
    times = sorted(float(outcome["seconds"]) for outcome in outcomes)
    return [
        {
            "pushers": pushers,
            "succeeded": sum(1 for outcome in outcomes if outcome["ok"]),
            "median_s": round(statistics.median(times), 3),
            "p95_s": round(times[min(len(times) - 1, round(0.95 * (len(times) - 1)))], 3),
        }
    ]


def history_rows(workdir: Path, postgres: str | None, writes: int = 10_000) -> list[dict[str, object]]:
    """Database size after ``writes`` single-entry writes (100 keys, ~1 KB each), with history."""
    setups: list[tuple[str, str | None]] = [("SQLite", f"sqlite:///{workdir / f'hist-{uuid.uuid4().hex[:6]}.db'}")]
    if postgres:
        setups.append(("PostgreSQL", None))
    rows: list[dict[str, object]] = []
    for label, database in setups:
        with ExitStack() as stack:
            url = database or stack.enter_context(postgres_database(postgres or ""))
            storage = open_storage(url)
            try:
                for n in range(writes):
                    text = f"---\nname: k{n % 100}\ntype: project\n---\nrevision {n} " + "x" * 1000 + "\n"
                    storage.put_entries(REPO, {f"k{n % 100:03}.md": text}, None, max_entries=100_000)
                size = _database_bytes(url)
            finally:
                storage.close()
        rows.append(
            {"database": label, "writes": writes, "db_mb": round(size / 1e6, 2), "bytes_per_write": size // writes}
        )
    return rows


def _database_bytes(url: str) -> int:
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) if row else 0


def base_rows(files: int, workdir: Path) -> list[dict[str, object]]:
    """The recorded base alone (no server, CPU seconds of this process): a repository of ``files``
    keys recorded once, then what a push of a 1% change records (one update per batch of 150 keys)
    and what a first pull records (one update per 25 keys settled)."""
    from memdir.team.sync_base import load_base, update_base

    team = workdir / f"base-{files}-{uuid.uuid4().hex[:6]}" / "team"
    team.mkdir(parents=True)
    server = "http://bench"
    update_base(str(team), server, REPO, {f"topic/note{n:06}.md": f"sha256:{n:064x}" for n in range(files)})
    rows: list[dict[str, object]] = []
    changed = [f"topic/note{n:06}.md" for n in range(0, files, 100)]
    started, wall = time.process_time(), time.perf_counter()
    for start in range(0, len(changed), 150):
        update_base(str(team), server, REPO, {key: "sha256:pushed" for key in changed[start : start + 150]})
    rows.append(
        {
            "files": files,
            "base": "push of a 1% change",
            "updates": -(-len(changed) // 150),
            "cpu_s": round(time.process_time() - started, 3),
            "wall_s": round(time.perf_counter() - wall, 3),
        }
    )
    keys = [f"topic/note{n:06}.md" for n in range(files)]
    started, wall = time.process_time(), time.perf_counter()
    for start in range(0, files, 25):
        update_base(str(team), server, REPO, {key: "sha256:pulled" for key in keys[start : start + 25]})
    rows.append(
        {
            "files": files,
            "base": "pull of every file",
            "updates": -(-files // 25),
            "cpu_s": round(time.process_time() - started, 3),
            "wall_s": round(time.perf_counter() - wall, 3),
        }
    )
    assert load_base(str(team), server, REPO)[keys[-1]] == "sha256:pulled"
    return rows


def median_rows(make: Callable[[], list[dict[str, object]]], runs: int) -> list[dict[str, object]]:
    """Run ``make`` ``runs`` times; every numeric cell becomes the median over the runs."""
    results = [make() for _ in range(runs)]
    merged = []
    for index, first in enumerate(results[0]):
        row: dict[str, object] = {}
        for column, value in first.items():
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and column not in ("files", "writes", "pushers")
            ):
                middle = statistics.median(float(str(result[index][column])) for result in results)
                row[column] = int(middle) if isinstance(value, int) else round(middle, 3)
            else:
                row[column] = value
        merged.append(row)
    return merged


def table(rows: list[dict[str, object]]) -> str:
    columns = list(rows[0])
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns)]
    lines += ["  ".join(str(r[c]).ljust(widths[c]) for c in columns) for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get("MEMDIR_TEST_POSTGRES"), help="admin URL of a cluster")
    parser.add_argument("--quick", action="store_true", help="1,000 files only and 2 s per throughput run")
    parser.add_argument("--runs", type=int, default=3, help="repeated runs per figure; the median is reported")
    parser.add_argument("--parts", default="push,concurrent,history,throughput", help="comma-separated parts to run")
    parser.add_argument("--push-sizes", default="", help="comma-separated file counts for part 1 (1000,10000)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "team_sync.json"))
    args = parser.parse_args()
    runs = max(1, args.runs)
    parts = set(args.parts.split(","))
    body: dict[str, object] = {"runs": runs, "threads": THREADS}
    with tempfile.TemporaryDirectory(prefix="memdir-bench-") as tmp:
        workdir = Path(tmp)
        sizes = (1000,) if args.quick else (1000, 10_000)
        if args.push_sizes:
            sizes = tuple(int(size) for size in args.push_sizes.split(","))
        if "push" in parts:
            body["push"] = [row for files in sizes for row in median_rows(lambda f=files: push_rows(f, workdir), runs)]  # type: ignore[misc]
        if "base" in parts:
            body["base"] = [row for files in sizes for row in median_rows(lambda f=files: base_rows(f, workdir), runs)]  # type: ignore[misc]
        if "concurrent" in parts:
            body["concurrent_pushers"] = median_rows(lambda: concurrent_rows(workdir), runs)
        if "history" in parts:  # a database's size after a fixed sequence of writes is the same every run
            body["history_growth"] = history_rows(workdir, args.postgres, 2000 if args.quick else 10_000)
        if "throughput" in parts:
            body["throughput"] = median_rows(
                lambda: throughput_rows(workdir, args.postgres, 2.0 if args.quick else 5.0), runs
            )
    for rows in body.values():
        if isinstance(rows, list):
            print(table(rows))
            print()
    out = Path(args.out)
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(body, indent=2) + "\n", "utf-8")
    print(f"wrote {out} (every figure the median of {runs} runs)")


if __name__ == "__main__":
    main()
