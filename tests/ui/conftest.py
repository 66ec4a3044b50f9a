from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from memdir.config import resolve_config
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.ui.app import UiServices, create_ui_app
from memdir.ui.services import build_services

TOKEN = "test-token-0123456789"


@pytest.fixture
def memory_root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = MemoryDir(root)
    store.save(
        Memory(
            name="Real DB in tests",
            description="Integration tests hit a real database, never mocks",
            type=MemoryType.FEEDBACK,
            body="Never mock the database.\n**Why:** a mock hid a broken migration.",
        )
    )
    store.save(
        Memory(
            name="Role",
            description="Leads the payments team; prefers short reviews",
            type=MemoryType.USER,
            body="Works on the payments service.",
        )
    )
    return root


@pytest.fixture
def services(memory_root: Path, tmp_path: Path) -> UiServices:
    project = tmp_path / "project"
    project.mkdir()
    config = resolve_config(str(project), memory_dir=str(memory_root), env={"CLAUDE_CONFIG_DIR": str(tmp_path / "c")})
    return build_services(config)


@pytest.fixture
def client(services: UiServices) -> Iterator[TestClient]:
    """A client that has visited the tokened address once, so it holds the cookie."""
    with TestClient(create_ui_app(services, token=TOKEN), base_url="http://127.0.0.1:8123") as c:
        first = c.get(f"/?token={TOKEN}", follow_redirects=False)
        assert first.status_code == 303
        yield c


CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser_context_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """Debian's chromium driven by Playwright, each context in a fresh profile directory.

    Skipped, saying why, only when chromium or Playwright is missing; CI installs both.
    """
    import os

    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need Playwright for Python (pip install playwright)")
    ARTIFACTS.mkdir(exist_ok=True)
    contexts = []
    with sync_playwright() as playwright:

        def launch(**options: object) -> object:
            profile = tmp_path_factory.mktemp("chromium-profile")
            context = playwright.chromium.launch_persistent_context(
                str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, **options
            )
            contexts.append(context)
            return context

        yield launch
        for context in contexts:
            context.close()
