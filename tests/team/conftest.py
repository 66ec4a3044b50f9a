from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from memdir.server.app import ServerConfig
from memdir.server.storage import Storage, open_storage
from memdir.team.client import TeamClient, TeamEndpoint
from team_servers import serve_in_thread

REPO = "acme/widgets"


@dataclass
class TeamServer:
    url: str
    token: str
    storage: Storage

    def endpoint(self, token: str | None = None, repo: str = REPO) -> TeamEndpoint:
        return TeamEndpoint(self.url, token or self.token, repo)


@pytest.fixture
def team_server_factory(database_url: str) -> Iterator[Callable[..., TeamServer]]:
    """Start the real server (uvicorn, 127.0.0.1) on the parametrised database, with a token for acme/widgets."""
    storage = open_storage(database_url)
    token = storage.create_token([REPO])
    with ExitStack() as stack:

        def start(config: ServerConfig | None = None) -> TeamServer:
            return TeamServer(stack.enter_context(serve_in_thread(storage, config)), token, storage)

        yield start
    storage.close()


@pytest.fixture
def team_server(team_server_factory: Callable[..., TeamServer]) -> TeamServer:
    return team_server_factory()


@pytest.fixture
def make_team_client(team_server: TeamServer) -> Iterator[Callable[..., TeamClient]]:
    with ExitStack() as stack:

        def make(token: str | None = None, repo: str = REPO, **options: object) -> TeamClient:
            return stack.enter_context(TeamClient(team_server.endpoint(token, repo), **options))  # type: ignore[arg-type]

        yield make


def write(root: Path, key: str, text: str) -> Path:
    path = root / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
