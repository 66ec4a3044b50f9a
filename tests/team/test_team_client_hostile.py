"""A server that misbehaves: hostile keys, transient failures, endless conflicts. Served for real
by uvicorn on 127.0.0.1 from a small Starlette app, since the real server refuses such data."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from team_helpers import REPO, TeamServer, write

from memdir.errors import SyncError
from memdir.team.client import TeamClient, TeamEndpoint, retry_delay
from memdir.team.protocol import API_PATH, hash_content, repo_checksum
from memdir.team.pull import pull
from memdir.team.push import push
from memdir.team.state import SyncState
from team_servers import free_port


@contextmanager
def serve_app(app: Starlette) -> Iterator[str]:
    import socket
    import threading

    sock = socket.socket()
    sock.bind(("127.0.0.1", free_port()))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def snapshot_body(entries: dict[str, str]) -> dict[str, object]:
    checksums = {key: hash_content(text) for key, text in entries.items()}
    return {
        "organizationId": "evil",
        "repo": REPO,
        "version": 1,
        "lastModified": "2026-01-01T00:00:00.000Z",
        "checksum": repo_checksum(checksums),
        "content": {"entries": entries, "entryChecksums": checksums},
    }


def static_server(body: object, status: int = 200) -> Starlette:
    async def handler(request: Request) -> Response:
        return JSONResponse(body, status_code=status)

    return Starlette(routes=[Route(API_PATH, handler, methods=["GET", "PUT"])])


def test_hostile_keys_from_a_malicious_server_never_write_outside_team(tmp_path: Path):
    memory = tmp_path / "memory"
    team = memory / "team"
    outside = tmp_path / "outside"
    outside.mkdir()
    team.mkdir(parents=True)
    (team / "escape").symlink_to(outside)
    (team / "dangling").symlink_to(tmp_path / "nowhere")
    hostile = {
        "../evil.md": "x",
        "../../evil.md": "x",
        "%2e%2e%2fevil.md": "x",
        "%2Fabs.md": "x",
        "．．／fullwidth.md": "x",
        "a\\b.md": "x",
        str(tmp_path / "absolute.md"): "x",
        "nul\0.md": "x",
        "sub/../../evil.md": "x",
        "escape/through-link.md": "x",
        "dangling": "x",
        "": "x",
        "dir/": "x",
        "too-big.md": "y" * 250_001,
        ".memdir.lock": "x",
        "ok.md": "fine\n",
        "sub/ok.md": "fine too\n",
    }
    with serve_app(static_server(snapshot_body(hostile))) as url, TeamClient(TeamEndpoint(url, "t", REPO)) as client:
        result = pull(client, SyncState(), str(team))

    assert sorted(result.written) == ["ok.md", "sub/ok.md"]
    assert sorted(skip.file for skip in result.skipped) == sorted(set(hostile) - {"ok.md", "sub/ok.md"})
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory", "outside"]
    assert sorted(str(p.relative_to(memory)) for p in memory.rglob("*")) == [
        ".memdir.lock",
        ".team-sync-base.json",
        "team",
        "team/dangling",
        "team/escape",
        "team/ok.md",
        "team/sub",
        "team/sub/ok.md",
    ]


def test_a_malformed_pull_body_is_a_protocol_error_and_is_not_retried(tmp_path: Path):
    calls: list[int] = []

    async def handler(request: Request) -> Response:
        calls.append(1)
        return JSONResponse({"content": {"entries": {"a.md": 5}}})

    app = Starlette(routes=[Route(API_PATH, handler, methods=["GET"])])
    with (
        serve_app(app) as url,
        TeamClient(TeamEndpoint(url, "t", REPO), sleep=lambda s: None) as client,
        pytest.raises(SyncError) as caught,
    ):
        pull(client, SyncState(), str(tmp_path / "team"))
    assert caught.value.rule == "sync-protocol" and len(calls) == 1


def test_get_retries_server_errors_with_backoff_and_stops_after_four_attempts(tmp_path: Path):
    failures = {"left": 2}

    async def handler(request: Request) -> Response:
        if failures["left"]:
            failures["left"] -= 1
            return JSONResponse({"error": {"message": "busy"}}, status_code=503)
        return JSONResponse(snapshot_body({"a.md": "a\n"}))

    slept: list[float] = []
    app = Starlette(routes=[Route(API_PATH, handler, methods=["GET"])])
    with serve_app(app) as url:
        with TeamClient(TeamEndpoint(url, "t", REPO), sleep=slept.append, jitter=lambda: 1.0) as client:
            assert pull(client, SyncState(), str(tmp_path / "team")).written == ("a.md",)
        assert slept == [0.625, 1.25]
        failures["left"] = 10
        slept.clear()
        with (
            TeamClient(TeamEndpoint(url, "t", REPO), sleep=slept.append, jitter=lambda: 0.0) as client,
            pytest.raises(SyncError) as caught,
        ):
            pull(client, SyncState(), str(tmp_path / "team"))
        assert slept == [0.5, 1.0, 2.0] and caught.value.status == 503
    assert [retry_delay(n, 0.0) for n in (1, 7, 8, 20)] == [0.5, 32.0, 32.0, 32.0]


def test_an_unreachable_server_names_the_url_and_the_fix(tmp_path: Path):
    url = f"http://127.0.0.1:{free_port()}"
    with (
        TeamClient(TeamEndpoint(url, "t", REPO), sleep=lambda s: None) as client,
        pytest.raises(SyncError) as caught,
    ):
        pull(client, SyncState(), str(tmp_path / "team"))
    assert caught.value.rule == "sync-network"
    assert url in caught.value.message and "MEMDIR_TEAM_SERVER" in caught.value.message


class MeddlingTransport(httpx.HTTPTransport):
    """Before each of our PUTs, a teammate pushes ``meddles`` through the same real server, so our
    If-Match is stale."""

    def __init__(self, server: TeamServer, meddles: list[dict[str, str]]) -> None:
        super().__init__()
        self.server, self.meddles = server, meddles

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "PUT" and self.meddles:
            teammate = httpx.put(
                self.server.url + API_PATH,
                params={"repo": REPO},
                json={"entries": self.meddles.pop(0)},
                headers={"Authorization": f"Bearer {self.server.token}"},
            )
            assert teammate.status_code == 200
        return super().handle_request(request)


def test_a_stale_if_match_is_accepted_when_the_pushed_keys_are_still_at_their_base(
    team_server: TeamServer, tmp_path: Path
):
    write(tmp_path / "team", "mine.md", "mine\n")
    transport = MeddlingTransport(team_server, [{"teammate.md": "hi\n"}])
    with TeamClient(team_server.endpoint(), transport=transport) as client:
        result = push(client, SyncState(), str(tmp_path / "team"))
    assert (result.uploaded, result.attempts) == (1, 1)
    stored = team_server.storage.get_repo(REPO)
    assert stored is not None and dict(stored.entries) == {"mine.md": "mine\n", "teammate.md": "hi\n"}


def test_a_412_on_a_key_a_teammate_just_wrote_reclassifies_and_overwrites_nothing(
    team_server: TeamServer, tmp_path: Path
):
    write(tmp_path / "team", "mine.md", "mine\n")
    sleeps: list[float] = []
    transport = MeddlingTransport(team_server, [{"mine.md": "theirs\n"}])
    with TeamClient(team_server.endpoint(), transport=transport) as client:
        result = push(client, SyncState(), str(tmp_path / "team"), sleep=sleeps.append, jitter=lambda: 0.5)
    assert result.uploaded == 0 and result.attempts == 2 and len(sleeps) == 1
    assert [key for key, _why in result.not_pushed] == ["mine.md"]
    stored = team_server.storage.get_repo(REPO)
    assert stored is not None and dict(stored.entries) == {"mine.md": "theirs\n"}
    assert (tmp_path / "team" / "mine.md").read_text(encoding="utf-8") == "mine\n"
