"""A real team server for the security tests: uvicorn in a thread on 127.0.0.1, over SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from memdir.server.storage import open_storage
from memdir.server.storage.base import Storage
from team_servers import serve_in_thread


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    with closing(open_storage(f"sqlite:///{tmp_path / 'team.db'}")) as opened:
        yield opened


@pytest.fixture
def url(storage: Storage) -> Iterator[str]:
    with serve_in_thread(storage, None) as base:
        yield base
