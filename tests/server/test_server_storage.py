from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from memdir.errors import ConfigError
from memdir.server.storage import default_database_url, open_storage
from memdir.server.storage.base import PutConflict, PutResult, PutTooMany, Storage, TokenScope, hash_token
from memdir.team.protocol import hash_content, repo_checksum

REPO = "acme/widgets"


def test_an_unknown_repo_has_no_state(storage: Storage) -> None:
    assert storage.get_repo(REPO) is None
    assert storage.get_hashes(REPO) is None


def test_put_stores_entries_and_the_repo_checksum(storage: Storage) -> None:
    result = storage.put_entries(REPO, {"b.md": "2", "a.md": "1"}, None, max_entries=10)
    assert isinstance(result, PutResult)
    assert result.written == ("a.md", "b.md")
    state = storage.get_repo(REPO)
    assert state is not None
    assert state.entries == {"a.md": "1", "b.md": "2"}
    assert state.checksum == result.checksum == repo_checksum(state.entry_checksums)
    hashes = storage.get_hashes(REPO)
    assert hashes is not None
    assert hashes.entries == {}
    assert hashes.entry_checksums == {"a.md": hash_content("1"), "b.md": hash_content("2")}


def test_if_match_against_the_empty_repo_checksum_succeeds(storage: Storage) -> None:
    assert isinstance(storage.put_entries(REPO, {"a.md": "1"}, repo_checksum({}), max_entries=10), PutResult)


def test_a_conflict_or_limit_leaves_no_trace(storage: Storage) -> None:
    assert storage.put_entries(REPO, {"a.md": "1"}, "sha256:stale", max_entries=10) == PutConflict(repo_checksum({}))
    assert storage.put_entries(REPO, {"a.md": "1", "b.md": "2"}, None, max_entries=1) == PutTooMany(1, 2)
    assert storage.get_repo(REPO) is None


def test_repos_are_independent(storage: Storage) -> None:
    storage.put_entries(REPO, {"a.md": "1"}, None, max_entries=1)
    storage.put_entries("acme/other", {"b.md": "2"}, None, max_entries=1)
    state = storage.get_repo(REPO)
    assert state is not None
    assert state.entries == {"a.md": "1"}


def test_deleting_the_last_key_empties_the_repo_and_leaves_a_tombstone(storage: Storage) -> None:
    storage.put_entries(REPO, {"a.md": "1"}, None, max_entries=10)
    assert storage.delete_key(REPO, "a.md").deleted
    state = storage.get_repo(REPO)
    assert state is not None
    assert state.entries == {}
    assert state.tombstones == {"a.md": hash_content("1")}
    assert not storage.delete_key(REPO, "a.md").deleted


def test_tokens_verify_to_their_scope(storage: Storage) -> None:
    token = storage.create_token(["acme/*", "x/y"], admin=True)
    assert storage.verify_token(token) == TokenScope(("acme/*", "x/y"), True)
    assert storage.verify_token(token + "x") is None
    scope = storage.verify_token(token)
    assert scope is not None
    assert scope.allows("acme/widgets")
    assert not scope.allows("x/z")


def test_concurrent_writers_in_threads_lose_nothing(storage: Storage) -> None:
    def writer(n: int) -> None:
        for j in range(5):
            while True:
                state = storage.get_hashes(REPO)
                current = state.checksum if state else repo_checksum({})
                if isinstance(storage.put_entries(REPO, {f"{n}/{j}.md": str(j)}, current, max_entries=99), PutResult):
                    break

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    state = storage.get_repo(REPO)
    assert state is not None
    assert len(state.entries) == 40
    assert state.version == 40


def test_only_token_hashes_reach_the_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "team.db"
    storage = open_storage(f"sqlite:///{path}")
    token = storage.create_token([REPO])
    with sqlite3.connect(path) as conn:
        stored = [row[0] for row in conn.execute("SELECT token_hash FROM team_tokens")]
    conn.close()
    assert token not in stored
    assert token.encode() not in path.read_bytes()


def test_the_default_database_lives_in_the_claude_config_home(tmp_path: Path) -> None:
    assert default_database_url(str(tmp_path)) == f"sqlite:///{tmp_path}/memdir-team.db"
    assert default_database_url("/home/u/.claude") == "sqlite:////home/u/.claude/memdir-team.db"


def test_an_unknown_database_scheme_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        open_storage("mysql://x")


def test_listed_tokens_show_scope_and_an_id_but_never_the_secret(storage: Storage) -> None:
    admin = storage.create_token(["acme/*"], admin=True)
    writer = storage.create_token([REPO])
    listed = {info.id: info for info in storage.list_tokens()}
    assert set(listed) == {hash_token(admin)[:12], hash_token(writer)[:12]}
    assert listed[hash_token(admin)[:12]].repos == ("acme/*",)
    assert listed[hash_token(admin)[:12]].admin
    assert not listed[hash_token(writer)[:12]].admin
    assert all(info.created_at.endswith("Z") for info in listed.values())


def test_a_revoked_token_stops_verifying_and_others_keep_working(storage: Storage) -> None:
    old = storage.create_token([REPO])
    kept = storage.create_token([REPO])
    revoked = storage.revoke_token(hash_token(old)[:8])
    assert revoked is not None
    assert revoked.id == hash_token(old)[:12]
    assert storage.verify_token(old) is None
    assert storage.verify_token(kept) is not None
    assert storage.revoke_token(kept) is not None
    assert storage.verify_token(kept) is None
    assert storage.revoke_token(kept) is None
    assert storage.list_tokens() == []


@pytest.mark.parametrize("ident", ["abc", "not-hex-at-all", "12345%%%", "' OR 1=1 --"])
def test_revoke_refuses_what_is_neither_a_token_nor_an_id(storage: Storage, ident: str) -> None:
    token = storage.create_token([REPO])
    with pytest.raises(ConfigError, match="neither a token nor a token id"):
        storage.revoke_token(ident)
    assert storage.verify_token(token) is not None


def test_an_ambiguous_id_prefix_revokes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "team.db"
    storage = open_storage(f"sqlite:///{path}")
    storage.create_token([REPO])
    with sqlite3.connect(path) as conn:
        for tail in ("aa", "bb"):
            conn.execute(
                "INSERT INTO team_tokens (token_hash, repos, admin, created_at) VALUES (?, ?, 0, ?)",
                ("0123456789" + tail + "0" * 52, '["acme/widgets"]', "2026-01-01T00:00:00.000Z"),
            )
    conn.close()
    with pytest.raises(ConfigError, match="matches 2 tokens"):
        storage.revoke_token("01234567")
    assert len(storage.list_tokens()) == 3
    assert storage.revoke_token("0123456789aa") is not None
    assert len(storage.list_tokens()) == 2
    storage.close()
