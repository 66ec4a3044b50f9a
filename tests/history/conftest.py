"""The ``place`` fixture: one project's memory directory with its history, private to the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from history_place import Place


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    here = Place(tmp_path)
    for name, value in here.env.items():
        monkeypatch.setenv(name, value)
    for name in ("MEMDIR_MODEL", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "CLAUDE_CODE_DISABLE_AUTO_MEMORY"):
        monkeypatch.delenv(name, raising=False)
    return here
