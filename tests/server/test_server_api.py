from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from memdir.server.app import ServerConfig
from memdir.server.storage.base import Storage
from memdir.team.protocol import API_PATH, hash_content, parse_snapshot, repo_checksum

REPO = "acme/widgets"
ServerFactory = Callable[..., httpx.Client]


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def token(storage: Storage) -> str:
    return storage.create_token([REPO])


@pytest.fixture
def client(make_client: ServerFactory) -> httpx.Client:
    return make_client()


def _put(client: httpx.Client, token: str, entries: dict[str, str], **headers: str) -> httpx.Response:
    return client.put(API_PATH, params={"repo": REPO}, json={"entries": entries}, headers={**_auth(token), **headers})


def _get(client: httpx.Client, token: str, **params: str) -> httpx.Response:
    return client.get(API_PATH, params={"repo": REPO, **params}, headers=_auth(token))


def test_a_repo_without_entries_is_404_for_both_views(client: httpx.Client, token: str) -> None:
    assert _get(client, token).status_code == 404
    assert _get(client, token, view="hashes").status_code == 404


def test_a_pushed_entry_comes_back_with_checksums_and_an_etag(client: httpx.Client, token: str) -> None:
    pushed = _put(client, token, {"MEMORY.md": "hello\n", "sub/a.md": "a"})
    assert pushed.status_code == 200
    body = pushed.json()
    assert body["version"] == 1
    assert body["checksum"] == repo_checksum({"MEMORY.md": hash_content("hello\n"), "sub/a.md": hash_content("a")})
    pulled = _get(client, token)
    assert pulled.status_code == 200
    assert pulled.headers["etag"] == f'"{body["checksum"]}"'
    snapshot = parse_snapshot(pulled.json())
    assert snapshot.repo == REPO
    assert snapshot.checksum == body["checksum"]
    assert snapshot.entries == {"MEMORY.md": "hello\n", "sub/a.md": "a"}
    assert snapshot.entry_checksums == {"MEMORY.md": hash_content("hello\n"), "sub/a.md": hash_content("a")}


def test_if_none_match_with_the_current_checksum_is_304(client: httpx.Client, token: str) -> None:
    checksum = _put(client, token, {"a.md": "x"}).json()["checksum"]
    unchanged = client.get(API_PATH, params={"repo": REPO}, headers={**_auth(token), "If-None-Match": f'"{checksum}"'})
    assert unchanged.status_code == 304
    assert unchanged.content == b""
    stale = client.get(API_PATH, params={"repo": REPO}, headers={**_auth(token), "If-None-Match": '"sha256:00"'})
    assert stale.status_code == 200


def test_the_hashes_view_has_checksums_and_no_bodies(client: httpx.Client, token: str) -> None:
    _put(client, token, {"a.md": "x", "b.md": "y"})
    body = _get(client, token, view="hashes").json()
    assert "entries" not in body["content"]
    assert body["content"]["entryChecksums"] == {"a.md": hash_content("x"), "b.md": hash_content("y")}
    assert parse_snapshot(body, hashes_only=True).version == 1


def test_a_put_keeps_keys_it_does_not_name(client: httpx.Client, token: str) -> None:
    _put(client, token, {"a.md": "1", "b.md": "2"})
    second = _put(client, token, {"b.md": "3", "c.md": "4"})
    assert second.json()["version"] == 2
    assert sorted(second.json()["written"]) == ["b.md", "c.md"]
    assert parse_snapshot(_get(client, token).json()).entries == {"a.md": "1", "b.md": "3", "c.md": "4"}


def test_a_put_that_changes_nothing_keeps_the_version(client: httpx.Client, token: str) -> None:
    first = _put(client, token, {"a.md": "1"}).json()
    again = _put(client, token, {"a.md": "1"}).json()
    assert (again["version"], again["checksum"]) == (first["version"], first["checksum"])


def test_a_stale_if_match_is_412_with_the_current_checksum(client: httpx.Client, token: str) -> None:
    first = _put(client, token, {"a.md": "1"}).json()["checksum"]
    second = _put(client, token, {"a.md": "2"}, **{"If-Match": f'"{first}"'}).json()["checksum"]
    conflict = _put(client, token, {"a.md": "3"}, **{"If-Match": f'"{first}"'})
    assert conflict.status_code == 412
    assert conflict.json()["error"]["details"]["current_checksum"] == second
    assert parse_snapshot(_get(client, token).json()).entries == {"a.md": "2"}


def test_too_many_entries_is_a_structured_413_and_stores_nothing(make_client: ServerFactory, token: str) -> None:
    client = make_client(ServerConfig(max_entries=5))
    assert _put(client, token, {f"{i}.md": "x" for i in range(4)}).status_code == 200
    refused = _put(client, token, {"4.md": "x", "5.md": "x"})
    assert refused.status_code == 413
    assert refused.json()["error"]["details"] == {
        "error_code": "team_memory_too_many_entries",
        "max_entries": 5,
        "received_entries": 6,
    }
    assert sorted(parse_snapshot(_get(client, token).json()).entries) == [f"{i}.md" for i in range(4)]
    assert _put(client, token, {"0.md": "changed", "4.md": "x"}).status_code == 200


def test_an_entry_over_250000_bytes_is_413_naming_the_key(client: httpx.Client, token: str) -> None:
    refused = _put(client, token, {"ok.md": "fine", "big.md": "é" * 125_001})
    assert refused.status_code == 413
    details = refused.json()["error"]["details"]
    assert details["error_code"] == "team_memory_entry_too_large"
    assert details["key"] == "big.md"
    assert details["received_bytes"] == 250_002
    assert _get(client, token).status_code == 404


def test_a_body_over_the_request_limit_is_413_before_parsing(client: httpx.Client, token: str) -> None:
    entries = {f"{i}.md": "x" * 200_000 for i in range(11)}
    refused = _put(client, token, entries)
    assert refused.status_code == 413
    assert refused.json()["error"]["details"]["error_code"] == "request_too_large"
    assert _get(client, token).status_code == 404


@pytest.mark.parametrize(
    "key",
    [
        "../x",
        "%2e%2e%2fx",
        "\uff0e\uff0e\uff0fx",
        "\\x.md",
        "/etc/passwd",
        "a\0b",
        "a//b",
        "dir/",
        "a/./b",
        "",
    ],
)
def test_hostile_keys_are_400_naming_key_and_rule(client: httpx.Client, token: str, key: str) -> None:
    refused = _put(client, token, {"good.md": "fine", key: "payload"})
    assert refused.status_code == 400
    details = refused.json()["error"]["details"]
    assert details["error_code"] == "team_memory_invalid_key"
    assert details["key"] == key
    assert details["rule"]
    assert _get(client, token).status_code == 404


def test_a_secret_in_one_of_50_entries_is_422_and_nothing_is_stored(client: httpx.Client, token: str) -> None:
    secret = "gh" + "p_" + "FAKEfake0" * 4
    entries = {f"notes/{i:02}.md": f"note {i}\n" for i in range(50)}
    entries["notes/17.md"] = "deploy notes\nuse " + secret + " for the bot\n"
    refused = _put(client, token, entries)
    assert refused.status_code == 422
    assert secret not in refused.text
    body = refused.json()["error"]
    assert body["details"]["findings"] == [
        {"key": "notes/17.md", "rule_id": "github-pat", "label": "GitHub PAT", "line": 2}
    ]
    assert "notes/17.md" in body["message"]
    assert "GitHub PAT" in body["message"]
    assert _get(client, token).status_code == 404


@pytest.mark.parametrize(
    ("raw", "code"),
    [(b"{not json", "invalid_json"), (b"\xff\xfe", "invalid_json"), (b'{"entries": []}', "invalid_body")],
)
def test_malformed_bodies_are_400(client: httpx.Client, token: str, raw: bytes, code: str) -> None:
    refused = client.put(API_PATH, params={"repo": REPO}, content=raw, headers=_auth(token))
    assert refused.status_code == 400
    assert refused.json()["error"]["details"]["error_code"] == code


def test_content_with_a_nul_byte_is_400(client: httpx.Client, token: str) -> None:
    assert _put(client, token, {"a.md": "a\0b"}).status_code == 400


def test_missing_or_unknown_tokens_are_401(client: httpx.Client) -> None:
    assert client.get(API_PATH, params={"repo": REPO}).status_code == 401
    unknown = client.get(API_PATH, params={"repo": REPO}, headers=_auth("mdt_" + "nope"))
    assert unknown.status_code == 401
    assert unknown.headers["www-authenticate"] == "Bearer"


def test_a_repo_outside_the_tokens_scope_is_403(client: httpx.Client, token: str) -> None:
    refused = client.put(API_PATH, params={"repo": "other/repo"}, json={"entries": {"a.md": "x"}}, headers=_auth(token))
    assert refused.status_code == 403


def test_an_owner_wildcard_token_reaches_every_repo_of_that_owner(client: httpx.Client, storage: Storage) -> None:
    wildcard = storage.create_token(["acme/*"])
    assert client.get(API_PATH, params={"repo": "acme/other"}, headers=_auth(wildcard)).status_code == 404
    assert client.get(API_PATH, params={"repo": "evil/other"}, headers=_auth(wildcard)).status_code == 403


def test_a_malformed_repo_is_400(client: httpx.Client, token: str) -> None:
    assert client.get(API_PATH, params={"repo": "../x"}, headers=_auth(token)).status_code == 400


def test_deleting_a_key_needs_an_admin_token(client: httpx.Client, storage: Storage, token: str) -> None:
    _put(client, token, {"a.md": "1", "b.md": "2"})
    params = {"repo": REPO, "key": "a.md"}
    assert client.delete(API_PATH, params=params, headers=_auth(token)).status_code == 403
    admin = storage.create_token([REPO], admin=True)
    deleted = client.delete(API_PATH, params=params, headers=_auth(admin))
    assert deleted.status_code == 200
    assert deleted.json()["version"] == 2
    snapshot = parse_snapshot(_get(client, token).json())
    assert snapshot.entries == {"b.md": "2"}
    assert snapshot.checksum == repo_checksum({"b.md": hash_content("2")})
    assert client.delete(API_PATH, params=params, headers=_auth(admin)).status_code == 404
    assert client.delete(API_PATH, params={"repo": REPO, "key": "../b.md"}, headers=_auth(admin)).status_code == 400


def test_error_bodies_never_echo_a_token(client: httpx.Client) -> None:
    presented = "mdt_" + "x" * 40
    response = client.get(API_PATH, params={"repo": REPO}, headers=_auth(presented))
    assert presented not in json.dumps(response.json())
