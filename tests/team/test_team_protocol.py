from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdir.errors import PathTraversalError, SyncError, UnsafePathError
from memdir.team.protocol import (
    API_PATH,
    MAX_ENTRY_BYTES,
    MAX_PUT_BODY_BYTES,
    PutRequest,
    TeamMemorySnapshot,
    TooManyEntries,
    batch_delta_by_bytes,
    format_etag,
    hash_content,
    parse_etag,
    parse_put_request,
    parse_snapshot,
    parse_too_many_entries,
    repo_checksum,
    validate_key,
    validate_repo,
)


def test_constants_match_the_reference_limits() -> None:
    assert API_PATH == "/api/claude_code/team_memory"
    assert MAX_ENTRY_BYTES == 250_000
    assert MAX_PUT_BODY_BYTES == 200_000


@pytest.mark.parametrize(
    ("text", "digest"),
    [
        ("", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("hello\n", "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"),
    ],
)
def test_hash_content_matches_the_reference_vectors(text: str, digest: str) -> None:
    assert hash_content(text) == digest


def test_batching_follows_the_reference_vector() -> None:
    delta = {"b.md": "x" * 150_000, "a.md": "y" * 60_000, "c.md": "z" * 10, "d.md": "w" * 240_000}
    assert batch_delta_by_bytes(delta) == [["a.md"], ["b.md", "c.md"], ["d.md"]]


@given(st.dictionaries(st.text(min_size=1, max_size=20), st.text(max_size=400), max_size=30))
def test_batches_cover_every_key_once_and_respect_the_limit(delta: dict[str, str]) -> None:
    batches = batch_delta_by_bytes(delta, max_bytes=1000)
    flat = [key for batch in batches for key in batch]
    assert flat == sorted(delta)
    for batch in batches:
        body = json.dumps({"entries": {k: delta[k] for k in batch}}, ensure_ascii=False, separators=(",", ":"))
        assert len(batch) == 1 or len(body.encode("utf-8", "surrogatepass")) <= 1000


@pytest.mark.parametrize("key", ["MEMORY.md", "sub/dir/x.md", "a%20b.md", "%ZZ.md", "notes..md"])
def test_acceptable_keys_pass(key: str) -> None:
    assert validate_key(key) == key


@pytest.mark.parametrize(
    ("key", "rule"),
    [
        ("../evil.md", "key-dot-segment"),
        ("a/./b.md", "key-dot-segment"),
        ("%2e%2e%2fevil", "path-traversal"),
        ("%2Fabs", "path-traversal"),
        ("\uff0e\uff0e\uff0fx", "path-traversal"),
        ("\\x.md", "path-traversal"),
        ("/etc/passwd", "path-traversal"),
        ("a\0b", "path-traversal"),
        ("", "key-empty"),
        ("a//b.md", "key-empty-segment"),
        ("dir/", "key-trailing-slash"),
        ("x" * 300, "key-too-long"),
        ("a/" * 600 + "b", "key-too-long"),
    ],
)
def test_hostile_keys_are_rejected_with_their_rule(key: str, rule: str) -> None:
    with pytest.raises(UnsafePathError) as caught:
        validate_key(key)
    assert caught.value.rule == rule


def test_dot_segments_are_traversal_errors() -> None:
    with pytest.raises(PathTraversalError):
        validate_key("a/../../b")


@pytest.mark.parametrize("repo", ["acme/widgets", "a-b/c.d_e"])
def test_well_formed_repos_pass(repo: str) -> None:
    assert validate_repo(repo) == repo


@pytest.mark.parametrize("repo", ["acme", "acme/widgets/x", "../x", "a/..", "", "a b/c"])
def test_malformed_repos_are_rejected(repo: str) -> None:
    with pytest.raises(SyncError):
        validate_repo(repo)


def test_etags_round_trip() -> None:
    checksum = hash_content("x")
    assert parse_etag(format_etag(checksum)) == checksum
    assert parse_etag('W/"' + checksum + '"') == checksum
    assert parse_etag(None) is None


def test_repo_checksum_depends_on_keys_and_content_not_order() -> None:
    one = repo_checksum({"a": hash_content("1"), "b": hash_content("2")})
    assert one == repo_checksum({"b": hash_content("2"), "a": hash_content("1")})
    assert one != repo_checksum({"a": hash_content("2"), "b": hash_content("1")})
    assert repo_checksum({}) == hash_content("")


def test_a_snapshot_round_trips_through_json() -> None:
    snap = TeamMemorySnapshot("org", "a/b", 3, "2026-01-01T00:00:00.000Z", "sha256:00", {"k": "v"}, {"k": "h"})
    assert parse_snapshot(json.loads(json.dumps(snap.to_json()))) == snap
    hashes = parse_snapshot(snap.to_json(include_entries=False), hashes_only=True)
    assert hashes.entries == {}
    assert hashes.entry_checksums == {"k": "h"}


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"content": {"entries": {}}},
        {
            "organizationId": "o",
            "repo": "r",
            "version": "1",
            "lastModified": "",
            "checksum": "c",
            "content": {"entries": {}},
        },
        {
            "organizationId": "o",
            "repo": "r",
            "version": 1,
            "lastModified": "",
            "checksum": "c",
            "content": {"entries": {"k": 1}},
        },
    ],
)
def test_malformed_snapshots_raise_a_protocol_error(body: object) -> None:
    with pytest.raises(SyncError) as caught:
        parse_snapshot(body)
    assert caught.value.rule == "sync-protocol"


def test_hashes_view_without_entry_checksums_is_a_failure() -> None:
    body = {
        "organizationId": "o",
        "repo": "r",
        "version": 1,
        "lastModified": "",
        "checksum": "c",
        "content": {},
    }
    with pytest.raises(SyncError):
        parse_snapshot(body, hashes_only=True)


def test_put_bodies_parse_and_reject_non_string_values() -> None:
    assert parse_put_request({"entries": {"a.md": "x"}}) == PutRequest({"a.md": "x"})
    with pytest.raises(SyncError):
        parse_put_request({"entries": {"a.md": None}})
    with pytest.raises(SyncError):
        parse_put_request({"entries": []})


def test_the_structured_413_round_trips() -> None:
    body = TooManyEntries(5, 7).to_json()
    assert body["error"]["details"] == {
        "error_code": "team_memory_too_many_entries",
        "max_entries": 5,
        "received_entries": 7,
    }
    assert parse_too_many_entries(body) == TooManyEntries(5, 7)
    assert parse_too_many_entries({"error": "too large"}) is None
