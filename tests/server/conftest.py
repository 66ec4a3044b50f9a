from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from memdir.server.app import ServerConfig, create_app
from memdir.server.storage import Storage, open_storage

PG_ROOT = Path("/usr/lib/postgresql")


def _pg_bin() -> Path | None:
    versions = sorted(PG_ROOT.glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_postgres_user(argv: list[str]) -> None:
    command = ["su", "postgres", "-c", shlex.join(argv)] if os.geteuid() == 0 else argv
    subprocess.run(command, check=True, capture_output=True, timeout=120)


@contextmanager
def _throwaway_cluster() -> Iterator[str | None]:
    """A private PostgreSQL cluster in a temp dir, or None when no server binaries are installed."""
    bindir = _pg_bin()
    if bindir is None:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="memdir-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, user="postgres")
    data, port = root / "data", _free_port()
    _as_postgres_user([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"])
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    _as_postgres_user([str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"])
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        _as_postgres_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"])
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """MEMDIR_TEST_POSTGRES, else a throwaway cluster; skipped when neither (failed if required)."""
    required = os.environ.get("MEMDIR_REQUIRE_POSTGRES") == "1"
    url = os.environ.get("MEMDIR_TEST_POSTGRES")
    if url:
        yield url
        return
    try:
        with _throwaway_cluster() as started:
            if started is None:
                message = "PostgreSQL is not available (set MEMDIR_TEST_POSTGRES or install postgresql)"
                if required:
                    pytest.fail(message)
                pytest.skip(message)
            yield started
    except (OSError, subprocess.SubprocessError) as exc:
        if required:
            pytest.fail(f"could not start PostgreSQL: {exc}")
        pytest.skip(f"could not start PostgreSQL: {exc}")


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


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'team.db'}"
        return
    admin_url = request.getfixturevalue("postgres_admin_url")
    with fresh_postgres_database(admin_url) as url:
        yield url


@pytest.fixture
def storage(database_url: str) -> Iterator[Storage]:
    opened = open_storage(database_url)
    try:
        yield opened
    finally:
        opened.close()


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


ServerFactory = Callable[..., httpx.Client]


@pytest.fixture
def make_client(storage: Storage) -> Iterator[ServerFactory]:
    """Start a server (optionally with a config) and return an httpx client on its base URL."""
    with ExitStack() as stack:

        def start(config: ServerConfig | None = None) -> httpx.Client:
            base = stack.enter_context(serve_in_thread(storage, config))
            return stack.enter_context(httpx.Client(base_url=base, timeout=30))

        yield start
