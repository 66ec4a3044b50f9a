"""What the framework adapter tests share: a throw-away project and home, and sessions over them."""

from __future__ import annotations

import asyncio
import os
import sys
import warnings
from pathlib import Path

import pytest

# The wire-format test server of the model-layer tests (tests/llm/_llm_wire.py).
_LLM_TESTS = str(Path(__file__).resolve().parent.parent / "llm")
if _LLM_TESTS not in sys.path:
    sys.path.insert(0, _LLM_TESTS)


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


@pytest.fixture(autouse=True)
def _close_the_event_loop_a_framework_left_set():
    """pydantic-ai's run_sync sets an event loop and leaves it open; closed here, it cannot be
    collected unclosed (a ResourceWarning) in whichever later test replaces it."""
    yield
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop()
    except RuntimeError:  # none set (asyncio.run unset its own)
        return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)
