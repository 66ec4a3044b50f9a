"""The real sync client against the real server (uvicorn on 127.0.0.1), on SQLite and PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from team_helpers import REPO, TeamServer, write

from memdir.errors import SyncAuthError, SyncError, SyncTooManyEntries
from memdir.server.app import ServerConfig
from memdir.team.client import TeamClient
from memdir.team.protocol import MAX_PUT_BODY_BYTES, hash_content
from memdir.team.pull import pull
from memdir.team.push import push
from memdir.team.state import SyncState
from memdir.team.sync import status, sync

MakeClient = Callable[..., TeamClient]


def server_entries(server: TeamServer) -> dict[str, str]:
    state = server.storage.get_repo(REPO)
    return dict(state.entries) if state else {}


def test_a_push_uploads_every_file_and_a_second_push_uploads_nothing(make_team_client: MakeClient, tmp_path: Path):
    team = tmp_path / "team"
    for n in range(5):
        write(team, f"notes/n{n}.md", f"note {n}\n")
    write(team, "MEMORY.md", "- [n0](notes/n0.md)\n")
    client = make_team_client()
    first = push(client, SyncState(), str(team))
    assert (first.uploaded, first.batches, first.unchanged) == (6, 1, 0)
    second = push(client, SyncState(), str(team))
    assert (second.uploaded, second.batches, second.unchanged) == (0, 0, 6)
    assert first.to_json() == {
        "uploaded": 6,
        "batches": 1,
        "unchanged": 0,
        "deleted": [],
        "not_pushed": [],
        "held_deletions": [],
        "skipped_secrets": [],
        "skipped": [],
        "capped": 0,
        "problems": [],
    }


def test_pull_writes_the_server_version_keeps_identical_files_and_leaves_local_only_files(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    source, target = tmp_path / "a" / "team", tmp_path / "b" / "team"
    write(source, "same.md", "same\n")
    write(source, "changed.md", "server version\n")
    write(source, "deep/x.md", "deep\n")
    push(make_team_client(), SyncState(), str(source))
    same = write(target, "same.md", "same\n")
    os.utime(same, (1_000_000, 1_000_000))
    write(target, "changed.md", "local version\n")
    write(target, "mine.md", "only here\n")

    result = pull(make_team_client(), SyncState(), str(target))

    assert sorted(result.written) == ["changed.md", "deep/x.md"]
    assert result.unchanged == 1
    assert same.stat().st_mtime == 1_000_000
    assert (target / "changed.md").read_text(encoding="utf-8") == "server version\n"
    assert (target / "mine.md").read_text(encoding="utf-8") == "only here\n"
    assert not [p for p in target.rglob("*") if ".tmp." in p.name]


def test_pull_with_a_known_etag_is_not_modified_and_an_empty_repo_clears_the_state(
    make_team_client: MakeClient, tmp_path: Path
):
    client, state = make_team_client(), SyncState()
    empty = pull(client, state, str(tmp_path / "team"))
    assert empty.written == () and state.server_checksums == {} and state.last_known_checksum is None
    write(tmp_path / "team", "a.md", "a\n")
    push(client, state, str(tmp_path / "team"))
    assert pull(client, state, str(tmp_path / "team")).not_modified
    assert not pull(client, state, str(tmp_path / "team"), skip_etag_cache=True).not_modified


def test_two_clients_editing_one_key_the_later_push_overwrites_nothing_and_sync_keeps_both(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    alice, bob = tmp_path / "alice" / "team", tmp_path / "bob" / "team"
    alice_state, bob_state = SyncState(), SyncState()
    alice_client, bob_client = make_team_client(), make_team_client()
    write(alice, "shared.md", "v1 by alice\n")
    push(alice_client, alice_state, str(alice))
    pull(bob_client, bob_state, str(bob))
    assert (bob / "shared.md").read_text(encoding="utf-8") == "v1 by alice\n"

    write(alice, "shared.md", "v2 by alice\n")
    push(alice_client, alice_state, str(alice))
    write(bob, "shared.md", "v2 by bob\n")
    write(bob, "bob.md", "bob's own\n")
    result = push(bob_client, bob_state, str(bob))

    assert result.uploaded == 1 and [key for key, _ in result.not_pushed] == ["shared.md"]
    assert server_entries(team_server) == {"shared.md": "v2 by alice\n", "bob.md": "bob's own\n"}
    report = sync(bob_client, bob_state, str(bob))
    [conflict] = report.pull.conflicts
    assert (bob / "shared.md").read_text(encoding="utf-8") == "v2 by alice\n"
    assert (bob / conflict.kept_as).read_text(encoding="utf-8") == "v2 by bob\n"
    assert conflict.kept_as.startswith("shared.conflict-") and conflict.kept_as.endswith(".md")
    assert server_entries(team_server)[conflict.kept_as] == "v2 by bob\n"
    pull(alice_client, alice_state, str(alice))
    assert (alice / "bob.md").read_text(encoding="utf-8") == "bob's own\n"
    assert (alice / conflict.kept_as).read_text(encoding="utf-8") == "v2 by bob\n"


def test_a_secret_in_one_of_fifty_files_is_skipped_and_reported_by_label(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    team = tmp_path / "team"
    for n in range(50):
        write(team, f"f{n:02}.md", f"fact {n}\n")
    write(team, "f17.md", "deploy token: ghp_" + "A1b2C3d4E5" * 3 + "A1b2C3\n")
    result = push(make_team_client(), SyncState(), str(team))
    assert result.uploaded == 49
    assert [skip.to_json() for skip in result.skipped_secrets] == [{"file": "f17.md", "labels": ["GitHub PAT"]}]
    assert "f17.md" not in server_entries(team_server)
    assert len(server_entries(team_server)) == 49


def test_a_file_edited_after_a_push_is_scanned_again_and_its_new_secret_kept_back(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    team = tmp_path / "team"
    for n in range(3):
        write(team, f"f{n}.md", f"fact {n}\n")
    client, state = make_team_client(), SyncState()
    assert push(client, state, str(team)).uploaded == 3
    token = "ghp_" + "A1b2C3d4E5" * 3 + "A1b2C3"
    write(team, "f1.md", f"fact 1, and the deploy token: {token}\n")  # same size class, same name
    again = push(client, state, str(team))
    assert again.uploaded == 0 and again.unchanged == 2
    assert [skip.to_json() for skip in again.skipped_secrets] == [{"file": "f1.md", "labels": ["GitHub PAT"]}]
    assert server_entries(team_server)["f1.md"] == "fact 1\n"


def test_push_skips_symlinks_large_files_and_memdirs_own_files(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    team = tmp_path / "team"
    write(team, "ok.md", "ok\n")
    outside = write(tmp_path, "outside.md", "not team memory\n")
    (team / "link.md").symlink_to(outside)
    (team / "linkdir").symlink_to(tmp_path)
    write(team, "big.md", "x" * 250_001)
    write(team, ".memdir.lock", "")
    write(team, ".ok.md.tmp.1.2.abcd", "half written")
    (team / "bin.dat").write_bytes(b"\xff\xfe\x00")
    result = push(make_team_client(), SyncState(), str(team))
    assert server_entries(team_server) == {"ok.md": "ok\n"}
    assert {skip.file: skip.rule for skip in result.skipped} == {
        "big.md": "too-large",
        "link.md": "symlink",
        "bin.dat": "not-utf8",
    }


def test_a_deletion_is_pushed_as_a_tombstone_and_the_next_pull_elsewhere_removes_the_file(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    team, other = tmp_path / "a" / "team", tmp_path / "b" / "team"
    for n in range(4):
        write(team, f"keep{n}.md", "keep\n")
    gone = write(team, "gone.md", "gone\n")
    client, state = make_team_client(), SyncState()
    push(client, state, str(team))
    pull(make_team_client(), SyncState(), str(other))
    gone.unlink()
    assert pull(client, state, str(team), skip_etag_cache=True).kept_local == (
        ("gone.md", "deleted here, not pushed yet"),
    )
    assert not gone.exists()
    result = push(client, state, str(team))
    assert result.deleted == ("gone.md",) and result.uploaded == 0
    assert "gone.md" not in server_entries(team_server)
    assert pull(make_team_client(), SyncState(), str(other)).deleted == ("gone.md",)
    assert not (other / "gone.md").exists() and (other / "keep0.md").exists()


def test_batches_stay_under_the_body_limit_and_an_oversize_entry_goes_alone(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    team = tmp_path / "team"
    for n in range(30):
        write(team, f"n{n:02}.md", f"{n % 10}" * 20_000)
    write(team, "zz-huge.md", "h" * 240_000)
    client = make_team_client()
    result = push(client, SyncState(), str(team))
    assert result.uploaded == 31
    assert result.batches == 5  # 9 + 9 + 9 + 3 files of ~20 KB, then the 240 KB entry alone
    assert result.bytes_sent <= 4 * MAX_PUT_BODY_BYTES + 240_100
    stored = server_entries(team_server)
    assert {key: hash_content(text) for key, text in stored.items()} == {
        path.name: hash_content(path.read_text(encoding="utf-8")) for path in team.iterdir()
    }


def test_a_body_over_the_servers_limit_is_a_clear_413(team_server_factory: Callable[..., TeamServer], tmp_path: Path):
    server = team_server_factory(ServerConfig(max_body_bytes=50_000))
    write(tmp_path / "team", "big.md", "b" * 100_000)
    with TeamClient(server.endpoint()) as client, pytest.raises(SyncError) as caught:
        push(client, SyncState(), str(tmp_path / "team"))
    assert caught.value.status == 413
    assert "smaller batches" in caught.value.message


def test_a_413_entry_limit_is_remembered_and_the_next_push_is_capped(
    team_server_factory: Callable[..., TeamServer], tmp_path: Path
):
    server = team_server_factory(ServerConfig(max_entries=3))
    team = tmp_path / "team"
    for name in "edcba":
        write(team, f"{name}.md", name)
    state = SyncState()
    with TeamClient(server.endpoint()) as client:
        with pytest.raises(SyncTooManyEntries) as caught:
            push(client, state, str(team))
        assert caught.value.max_entries == 3 and state.server_max_entries == 3
        result = push(client, state, str(team))
    assert result.uploaded == 3 and result.capped == 2
    assert sorted(server_entries(server)) == ["a.md", "b.md", "c.md"]


def test_a_wrong_token_a_foreign_token_and_a_foreign_repo_are_auth_errors(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    write(tmp_path / "team", "a.md", "a\n")
    foreign = team_server.storage.create_token(["other/project"])
    cases = [("mdt_not-a-real-token", REPO, 401), (foreign, REPO, 403), (team_server.token, "other/project", 403)]
    for token, repo, status_code in cases:
        client = make_team_client(token=token, repo=repo)
        for operation in (pull, push):
            with pytest.raises(SyncAuthError) as caught:
                operation(client, SyncState(), str(tmp_path / "team"))
            assert caught.value.status == status_code
            assert "token" in caught.value.message
    assert server_entries(team_server) == {}


def test_sync_pulls_then_pushes_and_status_shows_the_delta(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    other, mine = tmp_path / "other" / "team", tmp_path / "mine" / "team"
    write(other, "theirs.md", "theirs\n")
    push(make_team_client(), SyncState(), str(other))
    write(mine, "ours.md", "ours\n")
    before = status(make_team_client(), SyncState(), str(mine))
    assert before.would_push == ("ours.md",) and before.server_only == ("theirs.md",)
    assert before.server_version == 1
    report = sync(make_team_client(), SyncState(), str(mine))
    pulled, pushed = report.pull, report.push
    assert pulled.written == ("theirs.md",) and pushed.uploaded == 1
    after = status(make_team_client(), SyncState(), str(mine))
    assert after.would_push == () and after.server_only == () and after.local_files == 2


def test_a_file_whose_name_is_a_secret_is_never_pushed(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    team = tmp_path / "team"
    name = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + ".md"
    write(team, name, "harmless text\n")
    write(team, "fine.md", "fine\n")
    result = push(make_team_client(), SyncState(), str(team))
    assert [skip.to_json() for skip in result.skipped_secrets] == [{"file": name, "labels": ["GitHub PAT"]}]
    assert server_entries(team_server) == {"fine.md": "fine\n"}
