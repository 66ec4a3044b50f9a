"""Sync under stress: a server process killed mid-push and restarted, and 20 concurrent pushers."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
from team_helpers import REPO, TeamServer, write

from memdir.errors import SyncError
from memdir.server.storage import open_storage
from memdir.team.client import TeamClient, TeamEndpoint
from memdir.team.push import push
from memdir.team.state import PushResult, SyncState
from team_servers import ServerProcess

FILES = 300


class KillAfterFirstBatch(httpx.HTTPTransport):
    """Once the first PUT is acknowledged, hold the client until the server process is dead."""

    def __init__(self, server: ServerProcess) -> None:
        super().__init__()
        self.server = server
        self.acknowledged = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "PUT" and response.status_code == 200:
            response.read()
            self.acknowledged += 1
            if self.acknowledged == 1:
                assert self.server.wait_for(lambda line: '"PUT ' in line and " 200" in line, timeout=60)
                self.server.kill()
        return response


def test_a_server_killed_mid_push_then_restarted_ends_with_every_file_once(database_url: str, tmp_path: Path):
    storage = open_storage(database_url)
    token = storage.create_token([REPO])
    storage.close()
    team = tmp_path / "team"
    local = {f"notes/n{n:03}.md": f"note {n}\n" + "body " * 400 for n in range(FILES)}
    for key, text in local.items():
        write(team, key, text)

    first = ServerProcess(database_url)
    try:
        transport = KillAfterFirstBatch(first)
        with TeamClient(TeamEndpoint(first.url, token, REPO), transport=transport) as client:
            try:
                push(client, SyncState(), str(team))
            except SyncError as exc:
                failure = exc
            else:
                raise AssertionError("the push outlived its server")
    finally:
        first.stop()
    assert failure.rule == "sync-network"
    assert "1 batch(es) were committed before batch 2" in failure.message
    assert first.url in failure.message

    second = ServerProcess(database_url, first.port)
    try:
        with TeamClient(TeamEndpoint(second.url, token, REPO)) as client:
            result = push(client, SyncState(), str(team))
            again = push(client, SyncState(), str(team))
        final = httpx.get(
            second.url + "/api/claude_code/team_memory",
            params={"repo": REPO},
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        ).json()
    finally:
        second.stop()
    assert 0 < result.uploaded < FILES and result.unchanged == FILES - result.uploaded
    assert again.uploaded == 0
    assert final["content"]["entries"] == local
    assert final["version"] == 1 + result.batches


def test_twenty_concurrent_pushers_all_land_and_none_overwrites_another(team_server: TeamServer, tmp_path: Path):
    results: dict[int, PushResult] = {}
    errors: list[BaseException] = []

    def pusher(n: int) -> None:
        team = tmp_path / f"c{n}" / "team"
        for j in range(5):
            write(team, f"client{n:02}/note{j}.md", f"client {n} note {j}\n")
        write(team, "shared.md", f"first writer {n}\n")
        try:
            with TeamClient(team_server.endpoint()) as client:
                results[n] = push(client, SyncState(), str(team))
        except (AssertionError, SyncError, OSError) as exc:
            errors.append(exc)

    threads = [threading.Thread(target=pusher, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and len(results) == 20
    stored = team_server.storage.get_repo(REPO)
    assert stored is not None
    assert len(stored.entries) == 20 * 5 + 1
    assert all(
        stored.entries[f"client{n:02}/note{j}.md"] == f"client {n} note {j}\n" for n in range(20) for j in range(5)
    )
    winner = int(stored.entries["shared.md"].split()[-1])
    assert "shared.md" in results[winner].uploaded_keys
    for n, result in results.items():  # every other first version of shared.md is kept and reported
        if n != winner:
            assert [key for key, _why in result.not_pushed] == ["shared.md"], result
