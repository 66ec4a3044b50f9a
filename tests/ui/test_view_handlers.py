"""The web view's endpoints called one at a time, without a server or the token gate: each is a
method that takes a request and answers a page, or raises the refusal the app's one handler shows."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from urllib.parse import urlencode

import pytest
from starlette.requests import Request

from memdir.errors import MemoryNotFound
from memdir.ui.app import UiServices, WebView
from memdir.web.handlers import WebError, web_error

TOKEN = "test-token-0123456789"
T = TypeVar("T")


def run(call: Coroutine[Any, Any, T]) -> T:
    """The handler on an event loop of its own, in a thread of its own: the browser tests of this
    directory leave Playwright's loop running in the main thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, call).result()


def get(path: str, query: str = "", **path_params: str) -> Request:
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(), "headers": []}
    return Request({**scope, "path_params": path_params})


def post(path: str, form: dict[str, str]) -> Request:
    body = urlencode(form).encode()

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {"type": "http", "method": "POST", "path": path, "query_string": b"", "headers": [], "path_params": {}}
    return Request(scope, receive)


def text_of(page: object) -> str:
    return bytes(page.body).decode("utf-8")  # type: ignore[attr-defined]


def test_a_memory_page_shows_the_memory_and_its_type(services: UiServices) -> None:
    view = WebView(services, token=TOKEN)
    file = next(h.filename for h in services.memory_dir.headers() if h.name == "Role")
    page = run(view.show(get(f"/m/{file}", file=file)))
    assert page.status_code == 200
    assert "Leads the payments team" in text_of(page)


def test_a_missing_memory_is_the_stores_refusal_and_reads_as_a_404_page(services: UiServices) -> None:
    view = WebView(services, token=TOKEN)
    with pytest.raises(MemoryNotFound) as missing:
        run(view.show(get("/m/nothing.md", file="nothing.md")))
    page = view.show_error(get("/m/nothing.md"), web_error(get("/m/nothing.md"), missing.value))
    assert page.status_code == 404
    assert "Cannot do that" in text_of(page)


def test_a_form_without_the_security_value_is_refused_before_anything_is_read(services: UiServices) -> None:
    view = WebView(services, token=TOKEN)
    with pytest.raises(WebError) as refused:
        run(view.create(post("/new", {"type": "user", "name": "x", "description": "y", "body": "z"})))
    assert (refused.value.status, refused.value.rule) == (403, "csrf")
    assert len(services.memory_dir.headers()) == 2


def test_an_untyped_new_memory_is_answered_with_the_editor_and_nothing_is_saved(services: UiServices) -> None:
    view = WebView(services, token=TOKEN)
    form = {"csrf": view.csrf, "type": "", "name": "Deploys", "description": "Friday freeze", "body": "none"}
    page = run(view.create(post("/new", form)))
    assert page.status_code == 400
    assert "choose a type" in text_of(page)
    assert "Friday freeze" in text_of(page)  # what was typed is kept
    assert len(services.memory_dir.headers()) == 2


def test_the_instructions_page_shows_each_agents_own_files(services: UiServices, tmp_path) -> None:
    project = tmp_path / "project"
    (project / "AGENTS.md").write_text("codex rules", encoding="utf-8")
    (project / "GEMINI.md").write_text("gemini rules", encoding="utf-8")
    page = text_of(run(WebView(services, token=TOKEN).instructions(get("/instructions"))))
    assert "Codex CLI" in page and "Gemini CLI" in page and "Claude Code" in page
    assert f"<code>{project / 'AGENTS.md'}</code>" in page and f"<code>{project / 'GEMINI.md'}</code>" in page
