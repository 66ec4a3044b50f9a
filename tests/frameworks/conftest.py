"""What the framework adapter tests share: a throw-away project and home, and sessions over them."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def env(tmp_path):
    """Claude Code's home and config directory inside the test's directory."""
    return {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    return str(os.path.realpath(root))


@pytest.fixture
def memory_dir(tmp_path):
    return str(tmp_path / "memory")
