"""Team-memory sync benchmark: push cost and server throughput.

    python bench/team_sync.py [--postgres postgresql://postgres@127.0.0.1:5432/postgres] [--quick]

Part 1: first push, then a push after changing 1% of the files, for 1,000 and 10,000 files
(bytes sent against the total, batches, seconds), against `memdir team serve` on SQLite.
Part 2: requests/s of `GET ?view=hashes` and of small PUTs from 8 client threads, with SQLite,
with PostgreSQL, and with two server processes on one PostgreSQL (PostgreSQL rows need
--postgres or MEMDIR_TEST_POSTGRES). Prints a table and writes bench/results/team_sync.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from memdir.server.storage import open_storage
from memdir.team.client import TeamClient, TeamEndpoint
from memdir.team.protocol import API_PATH
from memdir.team.state import SyncState
from memdir.team.sync import push

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
    database = f"sqlite:///{workdir / f'push-{files}.db'}"
    token = token_for(database)
    team = workdir / f"team-{files}"
    for n in range(files):
        path = team / f"topic{n % 50:02}" / f"note{n:05}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: note {n}\ntype: project\n---\n" + f"fact {n} " * 120 + "\n", encoding="utf-8")
    total = sum(p.stat().st_size for p in team.rglob("*.md"))
    rows = []
    with serve(database) as url, TeamClient(TeamEndpoint(url, token, REPO)) as client:
        state = SyncState()
        for label in ("first push", "1% changed"):
            if label == "1% changed":
                for n in range(0, files, 100):
                    path = team / f"topic{n % 50:02}" / f"note{n:05}.md"
                    path.write_text(path.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
            started = time.perf_counter()
            result = push(client, state, str(team))
            elapsed = time.perf_counter() - started
            rows.append(
                {
                    "files": files,
                    "push": label,
                    "uploaded": result.uploaded,
                    "bytes_sent": result.bytes_sent,
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
    setups: list[tuple[str, str | None, int]] = [("SQLite, 1 process", f"sqlite:///{workdir / 'tp.db'}", 1)]
    if postgres:
        setups += [("PostgreSQL, 1 process", None, 1), ("PostgreSQL, 2 processes", None, 2)]
    rows = []
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdir-bench-") as tmp:
        workdir = Path(tmp)
        pushes = [row for files in ((1000,) if args.quick else (1000, 10_000)) for row in push_rows(files, workdir)]
        rates = throughput_rows(workdir, args.postgres, 2.0 if args.quick else 5.0)
    print(table(pushes))
    print()
    print(table(rates))
    out = Path(__file__).parent / "results" / "team_sync.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"push": pushes, "throughput": rates, "threads": THREADS}, indent=2) + "\n", "utf-8")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
