from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack

import pytest
from team_helpers import REPO, TeamServer

from memdir.server.app import ServerConfig
from memdir.server.storage import open_storage
from memdir.team.client import TeamClient
from team_servers import serve_in_thread


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
