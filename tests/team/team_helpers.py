"""Shared values for the team-sync tests (imported by name: conftest modules are not importable reliably)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memdir.server.storage.base import Storage
from memdir.team.client import TeamEndpoint

REPO = "acme/widgets"


@dataclass
class TeamServer:
    url: str
    token: str
    storage: Storage

    def endpoint(self, token: str | None = None, repo: str = REPO) -> TeamEndpoint:
        return TeamEndpoint(self.url, token or self.token, repo)


def write(root: Path, key: str, text: str) -> Path:
    path = root / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
