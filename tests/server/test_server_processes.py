"""Two `memdir team serve` processes on one database, many clients pushing through both."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest

from memdir.server.storage import open_storage
from memdir.team.protocol import API_PATH, format_etag, parse_snapshot

REPO = "acme/widgets"
CLIENTS = 20
WRITES_PER_CLIENT = 5
_RUNNING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


@contextmanager
def serve_process(database_url: str) -> Iterator[str]:
    """`memdir team serve --port 0`; waits for uvicorn's startup line to learn the port."""
    argv = [sys.executable, "-c", "from memdir.cli import main; main()", "team", "serve", "--port", "0"]
    process = subprocess.Popen(
        [*argv, "--db", database_url], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert process.stderr is not None
    started = threading.Event()
    port: list[str] = []
    output: list[str] = []

    def watch() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            output.append(line)
            found = _RUNNING.search(line)
            if found and not started.is_set():
                port.append(found.group(1))
                started.set()
        started.set()

    reader = threading.Thread(target=watch, daemon=True)
    reader.start()
    try:
        assert started.wait(timeout=60) and port, "server did not start:\n" + "".join(output)
        yield f"http://127.0.0.1:{port[0]}"
    finally:
        process.terminate()
        process.wait(timeout=30)
        reader.join(timeout=30)
        process.stderr.close()


def _push_until_acknowledged(client: httpx.Client, token: str, key: str, content: str) -> int:
    """The client's protocol: probe hashes, PUT with If-Match, on 412 probe again. Returns tries."""
    headers = {"Authorization": f"Bearer {token}"}
    for attempt in range(1, 500):
        probe = client.get(API_PATH, params={"repo": REPO, "view": "hashes"}, headers=headers)
        assert probe.status_code in (200, 404), probe.text
        put_headers = dict(headers)
        if probe.status_code == 200:
            put_headers["If-Match"] = format_etag(probe.json()["checksum"])
        response = client.put(API_PATH, params={"repo": REPO}, json={"entries": {key: content}}, headers=put_headers)
        if response.status_code == 200:
            return attempt
        assert response.status_code in (412, 200), response.text
    raise AssertionError(f"{key} never acknowledged")


def test_two_server_processes_never_lose_an_acknowledged_write(database_url: str) -> None:
    storage = open_storage(database_url)
    token = storage.create_token([REPO])
    storage.close()
    acknowledged: dict[str, str] = {}
    lock = threading.Lock()
    failures: list[Exception] = []

    with ExitStack() as stack:
        servers = [stack.enter_context(serve_process(database_url)) for _ in range(2)]

        def client_loop(n: int) -> None:
            try:
                with httpx.Client(timeout=60) as client:
                    for j in range(WRITES_PER_CLIENT):
                        base = servers[(n + j) % 2]
                        client.base_url = httpx.URL(base)
                        key, content = f"client{n:02}/note{j}.md", f"written by {n} round {j}\n"
                        _push_until_acknowledged(client, token, key, content)
                        with lock:
                            acknowledged[key] = content
            except (AssertionError, httpx.HTTPError) as exc:
                failures.append(exc)

        threads = [threading.Thread(target=client_loop, args=(n,)) for n in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert not failures, failures
        final = httpx.get(
            servers[0] + API_PATH,
            params={"repo": REPO},
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        )

    snapshot = parse_snapshot(final.json())
    assert len(acknowledged) == CLIENTS * WRITES_PER_CLIENT
    assert snapshot.entries == acknowledged
    assert snapshot.version == CLIENTS * WRITES_PER_CLIENT


def test_a_postgresql_restart_under_a_running_server_costs_no_failed_request(tmp_path: object) -> None:
    from team_servers import restartable_cluster
    from team_servers import serve_process as serve_logged

    with restartable_cluster() as cluster:
        if cluster is None:
            pytest.skip("no PostgreSQL server binaries installed")
        url, restart = cluster
        storage = open_storage(url)
        token = storage.create_token([REPO])
        storage.close()
        headers = {"Authorization": f"Bearer {token}"}
        with serve_logged(url) as server, httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
            for n in range(12):  # enough requests to fill the connection pool with connections
                put = client.put(API_PATH, params={"repo": REPO}, json={"entries": {f"n{n}.md": f"{n}\n"}})
                assert put.status_code == 200, put.text
            restart()
            statuses = [client.get(API_PATH, params={"repo": REPO, "view": "hashes"}).status_code for _ in range(15)]
            put = client.put(API_PATH, params={"repo": REPO}, json={"entries": {"after.md": "after restart\n"}})
            assert statuses == [200] * 15 and put.status_code == 200
            assert client.get("/health").json() == {"status": "ok", "database": "ok"}
            assert len(client.get(API_PATH, params={"repo": REPO}).json()["content"]["entries"]) == 13


def test_killing_one_of_two_server_processes_mid_load_loses_no_acknowledged_write(database_url: str) -> None:
    from team_servers import ServerProcess

    storage = open_storage(database_url)
    token = storage.create_token([REPO])
    storage.close()
    acknowledged: dict[str, str] = {}
    lock = threading.Lock()
    failures: list[Exception] = []
    survivor, victim = ServerProcess(database_url), ServerProcess(database_url)
    halfway = threading.Event()
    try:

        def client_loop(n: int) -> None:
            try:
                with httpx.Client(timeout=60) as client:
                    for j in range(WRITES_PER_CLIENT):
                        key, content = f"client{n:02}/note{j}.md", f"written by {n} round {j}\n"
                        for base in (victim.url, survivor.url):  # a dead server: the client moves on
                            client.base_url = httpx.URL(base)
                            try:
                                _push_until_acknowledged(client, token, key, content)
                            except httpx.TransportError:
                                continue
                            with lock:
                                acknowledged[key] = content
                                if len(acknowledged) == CLIENTS * WRITES_PER_CLIENT // 3:
                                    halfway.set()
                            break
            except (AssertionError, httpx.HTTPError) as exc:
                failures.append(exc)

        threads = [threading.Thread(target=client_loop, args=(n,)) for n in range(CLIENTS)]
        for thread in threads:
            thread.start()
        assert halfway.wait(120)
        victim.process.send_signal(9)
        for thread in threads:
            thread.join(timeout=300)
        assert not failures, failures
        final = httpx.get(survivor.url + API_PATH, params={"repo": REPO}, headers={"Authorization": f"Bearer {token}"})
    finally:
        victim.kill()
        victim.stop()
        survivor.stop()
    snapshot = parse_snapshot(final.json())
    assert len(acknowledged) == CLIENTS * WRITES_PER_CLIENT
    assert {key: snapshot.entries.get(key) for key in acknowledged} == acknowledged
