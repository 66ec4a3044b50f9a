"""Lets the integration tests reuse the wire-format test server of the model-layer tests, and gives
the hook tests their project, environment and memory."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hook_helpers import BODY

from memdir.config import open_memory_dir, resolve_config
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir

_LLM_TESTS = str(Path(__file__).resolve().parent.parent / "llm")
if _LLM_TESTS not in sys.path:
    sys.path.insert(0, _LLM_TESTS)


@pytest.fixture
def project(tmp_path: Path) -> str:
    root = tmp_path / "repo"
    root.mkdir()
    return str(os.path.realpath(root))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A throw-away HOME and Claude Code config folder, as the variables memdir reads."""
    return {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


@pytest.fixture
def memories(project: str, env: dict[str, str]) -> MemoryDir:
    """The project's memory directory, holding the one memory :data:`hook_helpers.PROMPT` recalls."""
    directory = open_memory_dir(resolve_config(project, env=env))
    directory.save(
        Memory(
            name="Real DB in tests",
            description="Integration tests hit a real database, never mocks",
            type=MemoryType.FEEDBACK,
            body=BODY,
        )
    )
    return directory
