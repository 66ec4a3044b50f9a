"""A team pull, sync or restore is recorded in the local history as ``team:<token name>``: the
server says, per entry, which token wrote its current version (``entryAuthors``), and a push
answer says which token made it (``author``). A real ``memdir team serve`` process on 127.0.0.1,
on SQLite and on PostgreSQL, with two tokens."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner
from history_place import Place

from memdir.cli import cli
from memdir.server.storage import open_storage
from memdir.team.protocol import TeamMemorySnapshot, parse_put_response, parse_snapshot
from team_servers import serve_process

REPO = "acme/widgets"


def _team(memory: Path, url: str, token: str, *args: str) -> None:
    argv = ["--memory-dir", str(memory), "team", *args, "--server", url, "--token", token, "--repo", REPO]
    result = CliRunner().invoke(cli, argv, catch_exceptions=False)
    assert result.exit_code == 0, result.output + (result.stderr if result.stderr_bytes else "")


def _changes(place: Place, file: str) -> list[tuple[str, str]]:
    rows = place.json("history", file)
    assert isinstance(rows, list)
    return [(str(row["change"]), str(row["by"])) for row in reversed(rows)]


def test_pull_sync_and_restore_record_the_token_that_wrote_each_version(place: Place, database_url: str) -> None:
    storage = open_storage(database_url)
    alice, bob = (storage.create_token([REPO], name=name) for name in ("alice", "bob"))
    storage.close()
    theirs = place.root / "alice-memory"
    deploy = theirs / "team" / "deploy.md"
    deploy.parent.mkdir(parents=True)
    with serve_process(database_url) as server:
        deploy.write_text("Deploys go out on Tuesdays.\n", encoding="utf-8")
        _team(theirs, server.url, alice, "push")
        _team(place.memory, server.url, bob, "pull")
        deploy.write_text("Deploys go out on Wednesdays.\n", encoding="utf-8")
        _team(theirs, server.url, alice, "push")
        _team(place.memory, server.url, bob, "sync")
        assert place.file("team/deploy.md") == "Deploys go out on Wednesdays.\n"
        _team(place.memory, server.url, bob, "restore", "deploy.md", "--version", "1")
        assert place.file("team/deploy.md") == "Deploys go out on Tuesdays.\n"
        _team(theirs, server.url, alice, "pull")
        deploy.unlink()
        _team(theirs, server.url, alice, "push")
        _team(place.memory, server.url, bob, "pull")
    assert not (place.memory / "team" / "deploy.md").exists()
    assert _changes(place, "team/deploy.md") == [
        ("create", "team:alice"),
        ("edit", "team:alice"),
        ("edit", "team:bob"),  # the restore is a new write on the server, made with bob's token
        ("delete", "team:alice"),
    ]


def test_a_server_that_names_no_author_is_recorded_as_the_repository(place: Place, database_url: str) -> None:
    storage = open_storage(database_url)
    unnamed, reader = storage.create_token([REPO], name=""), storage.create_token([REPO], name="bob")
    storage.close()
    theirs = place.root / "other"
    (theirs / "team").mkdir(parents=True)
    (theirs / "team" / "notes.md").write_text("Shared notes.\n", encoding="utf-8")
    with serve_process(database_url) as server:
        _team(theirs, server.url, unnamed, "push")
        _team(place.memory, server.url, reader, "pull")
    assert _changes(place, "team/notes.md") == [("create", f"team:{REPO}")]


def test_a_server_database_from_before_entry_authors_gains_them_from_its_history(database_url: str) -> None:
    storage = open_storage(database_url)
    storage.put_entries(REPO, {"a.md": "A\n", "b.md": "B\n"}, None, max_entries=100, by="alice")
    storage.put_entries(REPO, {"b.md": "B2\n"}, None, max_entries=100, by="bob")
    storage.put_entries(REPO, {}, None, max_entries=100, deletions=["a.md"], by="carol")
    storage.close()
    _drop_author_column(database_url)
    storage = open_storage(database_url)
    try:
        state = storage.get_hashes(REPO)
        assert state is not None and dict(state.authors) == {"a.md": "carol", "b.md": "bob"}
        storage.put_entries(REPO, {"c.md": "C\n"}, None, max_entries=100, by="dave")
        state = storage.get_repo(REPO)
        assert state is not None and dict(state.authors) == {"a.md": "carol", "b.md": "bob", "c.md": "dave"}
    finally:
        storage.close()


def _drop_author_column(database_url: str) -> None:
    """Make the database look as an older server left it: no ``team_entries.by_name``."""
    if database_url.startswith("sqlite:///"):
        with sqlite3.connect(database_url.removeprefix("sqlite:///")) as conn:
            conn.execute("ALTER TABLE team_entries DROP COLUMN by_name")
        return
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE team_entries DROP COLUMN by_name")


def test_entry_authors_and_the_push_author_are_optional_on_the_wire() -> None:
    snapshot = TeamMemorySnapshot("org", REPO, 2, "2026-01-01T00:00:00.000Z", "sha256:00", {"k": "v"}, {"k": "h"})
    old = snapshot.to_json()
    assert "entryAuthors" not in old["content"] and parse_snapshot(old).entry_authors is None
    named = TeamMemorySnapshot(**{**snapshot.__dict__, "entry_authors": {"k": "alice"}})
    body = json.loads(json.dumps(named.to_json()))
    assert body["content"]["entryAuthors"] == {"k": "alice"}
    assert parse_snapshot(body).entry_authors == {"k": "alice"}
    assert parse_put_response({"checksum": "sha256:01", "version": 3}).author is None
    assert parse_put_response({"checksum": "sha256:01", "version": 3, "author": "bob"}).author == "bob"


def test_a_conflict_is_taken_in_as_the_teammate_and_resolved_as_the_person(place: Place, database_url: str) -> None:
    storage = open_storage(database_url)
    alice, bob = (storage.create_token([REPO], name=name) for name in ("alice", "bob"))
    storage.close()
    theirs = place.root / "alice-memory" / "team" / "deploy.md"
    theirs.parent.mkdir(parents=True)
    mine = place.memory / "team" / "deploy.md"
    with serve_process(database_url) as server:
        theirs.write_text("Deploys go out on Tuesdays.\n", encoding="utf-8")
        _team(theirs.parent.parent, server.url, alice, "push")
        _team(place.memory, server.url, bob, "pull")
        theirs.write_text("Deploys go out on Wednesdays.\n", encoding="utf-8")
        _team(theirs.parent.parent, server.url, alice, "push")
        mine.write_text("Deploys go out on Thursdays.\n", encoding="utf-8")
        _team(place.memory, server.url, bob, "pull")
        assert mine.read_text(encoding="utf-8") == "Deploys go out on Wednesdays.\n"
        _team(place.memory, server.url, bob, "resolve", "deploy.md", "--keep", "mine", "--no-push")
    assert mine.read_text(encoding="utf-8") == "Deploys go out on Thursdays.\n"
    assert _changes(place, "team/deploy.md") == [
        ("create", "team:alice"),
        ("edit", "external"),  # bob's own edit, kept before the pull replaced it
        ("edit", "team:alice"),
        ("edit", "cli"),  # the person chose their version
    ]
