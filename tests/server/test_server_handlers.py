"""The team server's and the dashboard's endpoints called one at a time, without a server: each is
a method that takes a request and answers it, or raises the refusal the app's one handler writes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.testclient import TestClient

from memdir.server.app import TeamServer, create_app
from memdir.server.dashboard import DASHBOARD_PATH, Dashboard, RefusalLog
from memdir.server.storage import open_storage
from memdir.server.storage.base import Storage
from memdir.team.protocol import API_PATH
from memdir.web.handlers import WebError, json_error
from memdir.web.pages import MAX_FORM_BYTES


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    with closing(open_storage(f"sqlite:///{tmp_path / 'team.db'}")) as opened:
        yield opened


def request(path: str, query: str = "", token: str | None = None) -> Request:
    headers = [(b"host", b"127.0.0.1:8765")]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "root_path": "",
        "query_string": query.encode(),
        "headers": headers,
        "server": ("127.0.0.1", 8765),
    }
    return Request(scope)


def refusal_of(call: Any) -> WebError:
    with pytest.raises(WebError) as refused:
        asyncio.run(call)
    return refused.value


def test_a_pull_of_a_repository_nobody_pushed_to_is_refused_as_not_found(storage: Storage) -> None:
    token = storage.create_token(["acme/app"])
    refused = refusal_of(TeamServer(storage).team_memory(request(API_PATH, "repo=acme/app", token)))
    assert (refused.status, refused.rule) == (404, "not_found")
    assert "acme/app" in refused.message


def test_a_pull_answers_the_stored_entries_with_their_checksum_as_etag(storage: Storage) -> None:
    token = storage.create_token(["acme/app"])
    storage.put_entries("acme/app", {"notes.md": "use the real database"}, None, max_entries=10, by="ci")
    answer = asyncio.run(TeamServer(storage).team_memory(request(API_PATH, "repo=acme/app", token)))
    body = json.loads(bytes(answer.body))
    assert answer.status_code == 200
    assert body["content"]["entries"] == {"notes.md": "use the real database"}
    assert answer.headers["etag"] == f'"{body["checksum"]}"'


def test_a_token_of_another_repository_is_refused_before_the_storage_is_read(storage: Storage) -> None:
    token = storage.create_token(["acme/other"])
    refused = refusal_of(TeamServer(storage).history(request(API_PATH + "/history", "repo=acme/app", token)))
    assert (refused.status, refused.rule) == (403, "forbidden")


def test_a_refusal_is_answered_as_the_protocol_envelope_in_ascii(storage: Storage) -> None:
    token = storage.create_token(["acme/app"])
    query = "repo=acme/app&key=../caf%C3%A9.md&version=1"
    refused = refusal_of(TeamServer(storage).version(request(API_PATH + "/version", query, token)))
    answer = json_error(None, refused)
    assert answer.status_code == 400
    assert bytes(answer.body).isascii()
    details = json.loads(bytes(answer.body))["error"]["details"]
    assert details["error_code"] == "team_memory_invalid_key"
    assert details["key"] == "../caf\u00e9.md"


def test_the_dashboard_shows_a_first_visit_the_sign_in_form_without_an_error(storage: Storage) -> None:
    dashboard = Dashboard(storage, RefusalLog())
    refused = refusal_of(dashboard.home(request("/dashboard/")))
    page = dashboard.show_error(request("/dashboard/"), refused)
    assert page.status_code == 401
    text = bytes(page.body).decode("utf-8")
    assert "Sign in" in text
    assert "unknown or revoked" not in text


def test_the_dashboard_refuses_a_repository_page_outside_the_token_scope(storage: Storage) -> None:
    token = storage.create_token(["acme/other"])
    dashboard = Dashboard(storage, RefusalLog())
    refused = refusal_of(dashboard.repo_page(request("/dashboard/repo", "name=acme/app", token)))
    assert refused.status == 403
    page = dashboard.show_error(request("/dashboard/repo"), refused)
    assert "not allowed to read repository" in bytes(page.body).decode("utf-8")


def test_a_restore_form_over_the_limit_is_a_413_page_and_nothing_is_written(storage: Storage) -> None:
    token = storage.create_token(["acme/app"], admin=True)
    storage.put_entries("acme/app", {"notes.md": "kept"}, None, max_entries=10, by="ci")
    with TestClient(create_app(storage), base_url="http://127.0.0.1:8765") as client:
        answer = client.post(
            f"{DASHBOARD_PATH}/restore",
            content=b"x" * (MAX_FORM_BYTES + 1),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/x-www-form-urlencoded"},
        )
    assert answer.status_code == 413
    assert "Too large" in answer.text
    state = storage.get_repo("acme/app")
    assert state is not None and state.entries == {"notes.md": "kept"}
