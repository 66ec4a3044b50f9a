from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing

import httpx
import pytest

from memdir.server.app import ServerConfig
from memdir.server.storage import open_storage
from memdir.server.storage.base import Storage
from team_servers import serve_in_thread


@pytest.fixture
def storage(database_url: str) -> Iterator[Storage]:
    with closing(open_storage(database_url)) as opened:
        yield opened


ServerFactory = Callable[..., httpx.Client]


@pytest.fixture
def make_client(storage: Storage) -> Iterator[ServerFactory]:
    """Start a server (optionally with a config) and return an httpx client on its base URL."""
    with ExitStack() as stack:

        def start(config: ServerConfig | None = None) -> httpx.Client:
            base = stack.enter_context(serve_in_thread(storage, config))
            return stack.enter_context(httpx.Client(base_url=base, timeout=30))

        yield start
