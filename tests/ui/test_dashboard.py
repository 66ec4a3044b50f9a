"""The team server's dashboard, in process: sign-in with team tokens, repositories, refusals, tokens."""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import closing

import pytest
from starlette.testclient import TestClient

from memdir.server.app import create_app
from memdir.server.dashboard import token_id
from memdir.server.storage import open_storage
from memdir.server.storage.base import Storage
from memdir.team.protocol import API_PATH

SECRET = "gh" + "p_" + "FAKEfake0" * 4


@pytest.fixture
def storage(database_url: str) -> Iterator[Storage]:
    with closing(open_storage(database_url)) as opened:
        yield opened


@pytest.fixture
def server(storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(storage), base_url="http://127.0.0.1:8765") as client:
        yield client


def push(server: TestClient, token: str, repo: str, entries: dict[str, str]) -> int:
    response = server.put(
        API_PATH, params={"repo": repo}, json={"entries": entries}, headers={"Authorization": f"Bearer {token}"}
    )
    return response.status_code


def sign_in(server: TestClient, token: str) -> None:
    response = server.post("/dashboard/login", data={"token": token}, follow_redirects=False)
    assert response.status_code == 303, response.text
    assert "HttpOnly" in response.headers["set-cookie"] and "Path=/dashboard" in response.headers["set-cookie"]


@pytest.mark.parametrize("path", ["/dashboard/", "/dashboard/repo?name=acme/widgets", "/dashboard/tokens"])
def test_every_dashboard_page_asks_for_a_token_first(server: TestClient, path: str) -> None:
    response = server.get(path)
    assert response.status_code == 401
    assert 'id="token"' in response.text and "Sign in" in response.text


def test_an_unknown_token_does_not_sign_in(server: TestClient) -> None:
    response = server.post("/dashboard/login", data={"token": "mdt_guess"})
    assert response.status_code == 401 and "unknown or revoked" in response.text
    assert "set-cookie" not in response.headers
    assert server.get("/dashboard/", headers={"Authorization": "Bearer mdt_guess"}).status_code == 401


def test_a_bearer_header_opens_the_dashboard_without_a_cookie(server: TestClient, storage: Storage) -> None:
    token = storage.create_token(["acme/widgets"])
    page = server.get("/dashboard/", headers={"Authorization": f"Bearer {token}"})
    assert page.status_code == 200
    assert token_id(token) in page.text and token not in page.text
    assert 'href="/dashboard/repo?name=acme/widgets"' in page.text


def test_a_repository_shows_its_files_and_a_file_its_text(server: TestClient, storage: Storage) -> None:
    token = storage.create_token(["acme/*"])
    assert push(server, token, "acme/widgets", {"deploy.md": "use <the> pipeline\n", "a/b.md": "x"}) == 200
    sign_in(server, token)
    page = server.get("/dashboard/repo", params={"name": "acme/widgets"}).text
    assert "deploy.md" in page and "a/b.md" in page and "Version" in page
    text = server.get("/dashboard/file", params={"name": "acme/widgets", "key": "deploy.md"}).text
    assert "use &lt;the&gt; pipeline" in text
    empty = server.get("/dashboard/repo", params={"name": "acme/empty"}).text
    assert "Nothing stored" in empty


def test_a_refused_secret_is_listed_by_rule_key_and_token_but_never_shown(server: TestClient, storage: Storage) -> None:
    token = storage.create_token(["acme/widgets"])
    assert push(server, token, "acme/widgets", {"ok.md": "fine\n", "ci.md": f"bot token\n{SECRET}\n"}) == 422
    sign_in(server, token)
    page = server.get("/dashboard/repo", params={"name": "acme/widgets"}).text
    assert SECRET not in page
    assert "ci.md" in page and "GitHub PAT" in page and "github-pat" in page
    assert token_id(token) in page
    assert "Nothing stored" in page  # the refused push stored nothing
    assert 'href="/dashboard/repo?name=acme/widgets"' in server.get("/dashboard/").text


@pytest.mark.parametrize(
    ("params", "status", "needle"),
    [
        ({"name": "../etc"}, 400, "is not of the form OWNER/NAME"),
        ({"name": ""}, 400, "is not of the form OWNER/NAME"),
        ({"name": "other/repo"}, 403, "not allowed to read repository 'other/repo'"),
    ],
)
def test_hostile_or_forbidden_repositories_are_clear_pages(
    server: TestClient, storage: Storage, params: dict[str, str], status: int, needle: str
) -> None:
    sign_in(server, storage.create_token(["acme/widgets"]))
    response = server.get("/dashboard/repo", params=params)
    assert response.status_code == status
    assert needle in html.unescape(response.text)


@pytest.mark.parametrize(
    ("key", "status"),
    [("../../etc/passwd", 400), ("missing.md", 404), ("", 400), ("a" * 5000, 400)],
)
def test_hostile_or_missing_files_are_clear_pages(server: TestClient, storage: Storage, key: str, status: int) -> None:
    token = storage.create_token(["acme/widgets"])
    push(server, token, "acme/widgets", {"deploy.md": "x"})
    sign_in(server, token)
    response = server.get("/dashboard/file", params={"name": "acme/widgets", "key": key})
    assert response.status_code == status
    assert "<main" in response.text


def test_the_token_list_is_for_administrators_only(server: TestClient, storage: Storage) -> None:
    member = storage.create_token(["acme/widgets"])
    admin = storage.create_token(["*"], admin=True)
    sign_in(server, member)
    denied = server.get("/dashboard/tokens")
    assert denied.status_code == 403 and "administrators" in denied.text
    sign_in(server, admin)
    page = server.get("/dashboard/tokens").text
    assert token_id(member) in page and token_id(admin) in page and "(you)" in page
    assert member not in page and admin not in page


def test_sign_out_forgets_the_cookie(server: TestClient, storage: Storage) -> None:
    sign_in(server, storage.create_token(["acme/widgets"]))
    assert server.get("/dashboard/").status_code == 200
    server.post("/dashboard/logout")
    assert server.get("/dashboard/").status_code == 401


def test_a_sign_in_from_another_site_is_refused(server: TestClient, storage: Storage) -> None:
    token = storage.create_token(["acme/widgets"])
    response = server.post("/dashboard/login", data={"token": token}, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403 and "set-cookie" not in response.headers


def test_unknown_pages_and_methods_are_pages_not_errors(server: TestClient) -> None:
    assert server.get("/dashboard/nowhere").status_code == 404
    assert server.get("/dashboard/login").status_code == 405
    assert server.get("/dashboard/static/style.css").headers["content-type"].startswith("text/css")


def test_the_history_says_who_changed_which_file_when(server: TestClient, storage: Storage) -> None:
    alice = storage.create_token(["acme/widgets"], name="alice")
    bob = storage.create_token(["acme/widgets"], admin=True, name="bob")
    assert push(server, alice, "acme/widgets", {"deploy.md": "v1\n"}) == 200
    assert push(server, bob, "acme/widgets", {"deploy.md": "v2\n", "oncall.md": "page\n"}) == 200
    sign_in(server, bob)
    page = server.get("/dashboard/repo", params={"name": "acme/widgets"}).text
    history = page.split("<h2>History</h2>", 1)[1]
    assert history.count("written") == 3
    assert "alice" in history and "bob" in history
    assert history.index("bob") < history.index("alice")  # newest first
    tokens = server.get("/dashboard/tokens").text
    assert "alice" in tokens and "bob" in tokens


def test_an_admin_scoped_to_an_owner_sees_that_owners_repositories_and_no_others(
    server: TestClient, storage: Storage
) -> None:
    writer = storage.create_token(["*"])
    for repo in ("acme/widgets", "acme/docs", "other/secret"):
        assert push(server, writer, repo, {"a.md": "a\n"}) == 200
    admin = storage.create_token(["acme/*"], admin=True)
    sign_in(server, admin)
    page = server.get("/dashboard/").text
    assert "acme/widgets" in page and "acme/docs" in page and "other/secret" not in page
    assert 'href="/dashboard/tokens"' in page


def test_a_token_that_cannot_list_tokens_is_shown_no_tokens_link(server: TestClient, storage: Storage) -> None:
    sign_in(server, storage.create_token(["acme/widgets"]))
    page = server.get("/dashboard/").text
    assert "acme/widgets" in page and 'href="/dashboard/tokens"' not in page


def test_a_history_row_opens_its_diff_and_an_admin_restores_it(server: TestClient, storage: Storage) -> None:
    writer = storage.create_token(["acme/widgets"])
    assert push(server, writer, "acme/widgets", {"deploy.md": "Tuesdays\n"}) == 200
    assert push(server, writer, "acme/widgets", {"deploy.md": "Fridays\n"}) == 200
    admin = storage.create_token(["acme/*"], admin=True)
    sign_in(server, admin)
    repo = server.get("/dashboard/repo", params={"name": "acme/widgets"}).text
    assert "/dashboard/change?name=acme/widgets&amp;key=deploy.md&amp;version=2" in repo
    change = server.get("/dashboard/change", params={"name": "acme/widgets", "key": "deploy.md", "version": "2"}).text
    assert '<span class="del">-Tuesdays</span>' in change and '<span class="add">+Fridays</span>' in change
    first = server.get("/dashboard/change", params={"name": "acme/widgets", "key": "deploy.md", "version": "1"}).text
    me = first.split('name="me" value="', 1)[1].split('"', 1)[0]
    form = {"me": me, "name": "acme/widgets", "key": "deploy.md", "version": "1"}
    assert server.post("/dashboard/restore", data={**form, "me": "wrong"}).status_code == 403
    done = server.post("/dashboard/restore", data=form, follow_redirects=False)
    assert done.status_code == 303
    assert (storage.get_repo("acme/widgets") or pytest.fail("gone")).entries["deploy.md"] == "Tuesdays\n"


def test_a_token_that_is_no_admin_sees_the_diff_but_no_restore(server: TestClient, storage: Storage) -> None:
    writer = storage.create_token(["acme/widgets"])
    assert push(server, writer, "acme/widgets", {"deploy.md": "Tuesdays\n"}) == 200
    sign_in(server, writer)
    change = server.get("/dashboard/change", params={"name": "acme/widgets", "key": "deploy.md", "version": "1"})
    assert change.status_code == 200 and "+Tuesdays" in change.text and "/dashboard/restore" not in change.text
