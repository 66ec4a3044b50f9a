"""Real team-memory servers for tests: PostgreSQL clusters, uvicorn in a thread, `memdir team serve`
processes. Shared by tests/server and tests/team; the fixtures built on them live in tests/conftest.py."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memdir.server.app import ServerConfig, create_app
from memdir.server.storage.base import Storage

PG_ROOT = Path("/usr/lib/postgresql")
_RUNNING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


def _pg_bin() -> Path | None:
    versions = sorted(PG_ROOT.glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    return versions[-1].parent if versions else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_postgres_user(argv: list[str]) -> None:
    command = ["su", "postgres", "-c", shlex.join(argv)] if os.geteuid() == 0 else argv
    subprocess.run(command, check=True, capture_output=True, timeout=120)


@contextmanager
def throwaway_cluster() -> Iterator[str | None]:
    """A private PostgreSQL cluster in a temp dir, or None when no server binaries are installed."""
    with restartable_cluster() as started:
        yield None if started is None else started[0]


@contextmanager
def restartable_cluster() -> Iterator[tuple[str, Callable[[], None]] | None]:
    """Like :func:`throwaway_cluster`, with a function that restarts the cluster on the same port
    (for tests of what a running server does when its database goes away and comes back)."""
    bindir = _pg_bin()
    if bindir is None:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="memdir-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, user="postgres")
    data, port = root / "data", free_port()
    _as_postgres_user([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"])
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg_ctl = [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w"]
    _as_postgres_user([*pg_ctl, "start"])

    def restart() -> None:
        _as_postgres_user([*pg_ctl, "-m", "fast", "restart"])

    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres", restart
    finally:
        _as_postgres_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"])
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def fresh_postgres_database(admin_url: str) -> Iterator[str]:
    import psycopg

    name = "memdir_test_" + uuid.uuid4().hex[:12]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    base, _, _ = admin_url.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def serve_in_thread(storage: Storage, config: ServerConfig | None = None) -> Iterator[str]:
    """The real app under uvicorn on 127.0.0.1. The socket listens before the thread starts, so
    requests can be sent at once: they wait in the backlog until uvicorn accepts them."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(create_app(storage, config), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


class ServerProcess:
    """`memdir team serve` as a child process; every output line (uvicorn's logs) is kept and can be
    waited for, so a test can act right after the server acknowledged a given request."""

    def __init__(self, database_url: str, port: int = 0, *extra: str) -> None:
        argv = [sys.executable, "-c", "from memdir.cli import main; main()", "team", "serve", "--port", str(port)]
        self.process = subprocess.Popen(
            [*argv, "--db", database_url, *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        found = self.wait_for(lambda line: _RUNNING.search(line) is not None, timeout=60)
        assert found, "server did not start:\n" + "".join(self.lines)
        match = _RUNNING.search(found)
        assert match is not None
        self.url = f"http://127.0.0.1:{match.group(1)}"
        self.port = int(match.group(1))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self.lines.append("")  # EOF marker
            self._changed.notify_all()

    def wait_for(self, predicate: object, timeout: float = 60, start: int = 0) -> str | None:
        """The first line from index ``start`` on that satisfies ``predicate``, waiting up to ``timeout``."""
        assert callable(predicate)
        seen = start
        result: list[str] = []

        def ready() -> bool:
            nonlocal seen
            while seen < len(self.lines):
                line = self.lines[seen]
                seen += 1
                if line and predicate(line):
                    result.append(line)
                    return True
                if not line:
                    return True
            return False

        with self._changed:
            self._changed.wait_for(ready, timeout)
        return result[0] if result else None

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)
        self._reader.join(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self._reader.join(timeout=30)
        if self.process.stdout is not None:
            self.process.stdout.close()


@contextmanager
def serve_process(database_url: str, port: int = 0, *extra: str) -> Iterator[ServerProcess]:
    server = ServerProcess(database_url, port, *extra)
    try:
        yield server
    finally:
        server.stop()
