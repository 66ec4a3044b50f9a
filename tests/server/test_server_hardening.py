"""Hostile bodies, history, health and If-Match: * against the real server (uvicorn on 127.0.0.1)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import httpx
import pytest

from memdir.server.app import HISTORY_PATH, SERVICE_NAME, VERSION_PATH, ServerConfig
from memdir.server.storage.base import Retention, Storage
from memdir.team.protocol import API_PATH, hash_content

REPO = "acme/widgets"
ServerFactory = Callable[..., httpx.Client]
GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def token(storage: Storage) -> str:
    return storage.create_token([REPO], name="alice@laptop")


@pytest.fixture
def client(make_client: ServerFactory) -> httpx.Client:
    return make_client()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _put_raw(client: httpx.Client, token: str, raw: bytes, **headers: str) -> httpx.Response:
    return client.put(
        API_PATH,
        params={"repo": REPO},
        content=raw,
        headers={**_auth(token), "Content-Type": "application/json", **headers},
    )


def _put(client: httpx.Client, token: str, entries: dict[str, str], **extra: object) -> httpx.Response:
    return _put_raw(client, token, json.dumps({"entries": entries, **extra}).encode())


HOSTILE = {
    "lone surrogate in a value": b'{"entries": {"a.md": "\\udfff"}}',
    "lone surrogate in a key": b'{"entries": {"\\udfff.md": "x"}}',
    "lone surrogate in a deletion": b'{"entries": {}, "deletions": ["\\ud800"]}',
    "100,000 nested brackets": b"[" * 100_000,
    "an integer of 5,000 digits": b'{"entries": {}, "n": ' + b"7" * 5000 + b"}",
    "a key that is a secret": json.dumps({"entries": {f"team/{GHP}.md": "x"}}).encode(),
    "a base checksum that is not text": b'{"entries": {"a.md": "x"}, "baseChecksums": {"a.md": 5}}',
    "a deletion that is also a write": b'{"entries": {"a.md": "x"}, "deletions": ["a.md"]}',
}


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_bodies_are_refused_with_a_4xx_and_the_server_keeps_serving(
    client: httpx.Client, token: str, raw: bytes
) -> None:
    assert _put(client, token, {"kept.md": "kept\n"}).status_code == 200
    response = _put_raw(client, token, raw)
    assert response.status_code in (400, 422), response.text
    assert response.json()["error"]["message"]
    after = client.get(API_PATH, params={"repo": REPO}, headers=_auth(token))
    assert after.status_code == 200 and after.json()["content"]["entries"] == {"kept.md": "kept\n"}


def test_a_secret_in_a_key_is_named_as_the_file_name(client: httpx.Client, token: str) -> None:
    response = _put(client, token, {f"{GHP}.md": "harmless\n"})
    assert response.status_code == 422
    assert f"{GHP}.md name: GitHub PAT" in response.json()["error"]["message"]


def test_if_match_star_accepts_any_version(client: httpx.Client, token: str) -> None:
    assert _put(client, token, {"a.md": "1"}).status_code == 200
    response = _put_raw(client, token, json.dumps({"entries": {"a.md": "2"}}).encode(), **{"If-Match": "*"})
    assert response.status_code == 200
    stale = _put_raw(client, token, json.dumps({"entries": {"a.md": "3"}}).encode(), **{"If-Match": '"sha256:old"'})
    assert stale.status_code == 412


def test_a_stale_if_match_passes_only_when_every_touched_key_is_at_its_base(client: httpx.Client, token: str) -> None:
    assert _put(client, token, {"a.md": "1", "b.md": "1"}).status_code == 200
    stale = {"If-Match": '"sha256:old"'}
    body = {"entries": {"a.md": "2"}, "baseChecksums": {"a.md": hash_content("1")}}
    assert _put_raw(client, token, json.dumps(body).encode(), **stale).status_code == 200
    body = {"entries": {"b.md": "2"}, "baseChecksums": {"b.md": hash_content("not what is stored")}}
    assert _put_raw(client, token, json.dumps(body).encode(), **stale).status_code == 412
    body = {"entries": {}, "deletions": ["b.md"], "baseChecksums": {"b.md": hash_content("1")}}
    deleted = _put_raw(client, token, json.dumps(body).encode(), **stale)
    assert deleted.status_code == 200 and deleted.json()["deleted"] == ["b.md"]
    hashes = client.get(API_PATH, params={"repo": REPO, "view": "hashes"}, headers=_auth(token)).json()
    assert hashes["content"]["entryChecksums"] == {"a.md": hash_content("2")}
    assert hashes["content"]["tombstones"] == {"b.md": hash_content("1")}


def test_history_lists_three_writes_and_a_delete_newest_first_with_who_and_content(
    client: httpx.Client, token: str
) -> None:
    for text in ("one\n", "two\n", "three\n"):
        assert _put(client, token, {"notes.md": text}).status_code == 200
    assert _put(client, token, {}, deletions=["notes.md"]).status_code == 200
    rows = client.get(HISTORY_PATH, params={"repo": REPO, "key": "notes.md"}, headers=_auth(token)).json()["history"]
    assert [(row["version"], row["deleted"], row["by"]) for row in rows] == [
        (4, True, "alice@laptop"),
        (3, False, "alice@laptop"),
        (2, False, "alice@laptop"),
        (1, False, "alice@laptop"),
    ]
    assert rows[1]["hash"] == hash_content("three\n") and rows[0]["hash"] == hash_content("three\n")
    second = client.get(VERSION_PATH, params={"repo": REPO, "key": "notes.md", "version": "2"}, headers=_auth(token))
    assert second.json()["content"] == "two\n"
    missing = client.get(VERSION_PATH, params={"repo": REPO, "key": "notes.md", "version": "9"}, headers=_auth(token))
    assert missing.status_code == 404
    bad = client.get(VERSION_PATH, params={"repo": REPO, "key": "notes.md", "version": "x"}, headers=_auth(token))
    assert bad.status_code == 400


def test_retention_keeps_the_newest_versions_per_key(make_client: ServerFactory, token: str) -> None:
    client = make_client(ServerConfig(retention=Retention(keep_versions=2)))
    for n in range(5):
        assert _put(client, token, {"a.md": f"{n}\n", "b.md": "same\n"}).status_code == 200
    rows = client.get(HISTORY_PATH, params={"repo": REPO}, headers=_auth(token)).json()["history"]
    assert [(row["key"], row["version"]) for row in rows] == [("a.md", 5), ("a.md", 4), ("b.md", 1)]


def test_health_and_root_answer_without_a_token(client: httpx.Client) -> None:
    health = client.get("/health")
    assert health.status_code == 200 and health.json() == {"status": "ok", "database": "ok"}
    root = client.get("/").json()
    assert root["service"] == SERVICE_NAME and root["api"] == API_PATH and root["version"]


def test_a_large_put_does_not_stall_other_clients(make_client: ServerFactory, storage: Storage, token: str) -> None:
    client = make_client(ServerConfig(max_entries=200_000))
    assert _put(client, token, {"small.md": "x"}).status_code == 200
    body = json.dumps({"entries": {f"k{n:06}.md": "v" for n in range(150_000)}}).encode()
    started, finished = threading.Event(), threading.Event()
    gets: list[int] = []

    def big_put() -> None:
        started.set()
        with httpx.Client(base_url=str(client.base_url), timeout=120) as other:
            _put_raw(other, token, body)
        finished.set()

    thread = threading.Thread(target=big_put)
    thread.start()
    assert started.wait(30)
    while not finished.is_set() and len(gets) < 1000:  # the GETs keep being answered during the PUT
        response = client.get("/health")
        gets.append(response.status_code)
        time.sleep(0)
    thread.join(120)
    assert set(gets) == {200}
