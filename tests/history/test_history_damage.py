"""A damaged history never stops a memory write: it is set aside (never deleted), said once, a new
one starts, and ``memdir doctor`` reports it; a missing history is said to start anew; a history
folder memdir cannot write to is refused with a message naming ``memdir.history``.

Real CLI runs on a real SQLite history whose pages are overwritten on disk (its header intact,
so it opens and fails on the first query that reaches them).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from pathlib import Path

import pytest
from history_place import Place

from memdir.store.history_records import history_path

NOTE_BODY = "\n".join(f"line {n} of a note long enough to fill the database's pages" for n in range(120))


def add(place: Place, name: str, *, ok: bool = True) -> object:
    return place.run("add", "--type", "project", "--name", name, "--description", f"{name}, in one line", ok=ok)


def damage(place: Place) -> str:
    """Overwrite the pages of the history's tables of changes (``versions``, ``live``, ``blobs``,
    ``runs``): the header, the schema and ``meta`` are kept, so the database opens as before and
    fails on the first query that reaches those pages."""
    path = history_path(str(place.memory), str(place.home))
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    roots = [int(row[0]) for row in conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name IN ('versions', 'live', 'blobs', 'runs')"
    )]  # fmt: skip
    conn.close()
    with open(path, "r+b") as handle:
        for root in roots:
            handle.seek((root - 1) * page)
            handle.write(b"\xde\xad\xbe\xef" * (page // 4))
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() is not None
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        conn.execute("PRAGMA integrity_check").fetchall()
    conn.close()
    return path


@pytest.fixture
def damaged(place: Place) -> tuple[Place, str]:
    for n in range(12):
        place.run(
            "add", "--type", "project", "--name", f"Topic {n} {'x' * n}", "--description", f"subject {n}",
            "--body", f"{n}\n{NOTE_BODY}", "--force",
        )  # fmt: skip
    return place, damage(place)


def test_a_damaged_history_stops_no_write_and_is_set_aside_said_once_and_reported(
    damaged: tuple[Place, str], caplog: pytest.LogCaptureFixture
) -> None:
    place, path = damaged
    with caplog.at_level(logging.WARNING, logger="memdir.history"):
        add(place, "After the damage")
        place.run("rm", "project_after_the_damage.md")
        add(place, "Again")
    said = [r.getMessage() for r in caplog.records if r.name == "memdir.history"]
    assert len(said) == 1 and "is damaged" in said[0] and ".damaged-" in said[0], said
    assert "no history of" not in said[0]
    [copy] = [str(p) for p in Path(path).parent.glob("*.damaged-*") if not str(p).endswith(("-wal", "-shm"))]
    assert os.path.getsize(copy) > 4 * 4096, "the damaged history is kept for a person, never deleted"
    assert (place.memory / "project_again.md").exists()

    versions = place.json("history")
    assert isinstance(versions, list) and {"project_again.md", "project_after_the_damage.md"} <= {
        v["file"] for v in versions
    }
    report = place.run("doctor", "--json", ok=False)
    problems = [p for p in json.loads(report.stdout)["problems"] if p["rule"] == "history-damaged"]  # type: ignore[attr-defined]
    assert [p["file"] for p in problems] == [copy] and ".recover" in problems[0]["message"]


def test_reading_commands_on_a_damaged_history_answer_without_a_traceback(damaged: tuple[Place, str]) -> None:
    place, _ = damaged
    for args in (
        ["history"],
        ["history", "--runs"],
        ["show", "project_topic_1_x.md", "--version", "1"],
        ["restore", "project_topic_1_x.md", "--version", "1"],
        ["undo", "--last"],
    ):
        result = place.run(*args, ok=False)
        assert "Traceback" not in result.output and "sqlite3" not in result.output, (args, result.output)  # type: ignore[attr-defined]
        assert result.exit_code in (0, 1), (args, result.output)  # type: ignore[attr-defined]


def test_doctor_finds_a_damaged_history_and_fix_sets_it_aside(damaged: tuple[Place, str]) -> None:
    place, path = damaged
    found = place.run("doctor", ok=False)
    assert found.exit_code == 1  # type: ignore[attr-defined]
    assert f"{path}: [history-damaged] the history database is damaged" in found.output  # type: ignore[attr-defined]
    assert "doctor --fix" in found.output  # type: ignore[attr-defined]
    fixed = place.run("doctor", "--fix", ok=False)
    assert "the history database is damaged" not in fixed.output  # type: ignore[attr-defined]
    assert ".damaged-" in fixed.output and ".recover" in fixed.output  # type: ignore[attr-defined]
    add(place, "After the fix")


def test_a_deleted_history_is_said_to_start_anew(place: Place, caplog: pytest.LogCaptureFixture) -> None:
    add(place, "First")
    os.unlink(history_path(str(place.memory), str(place.home)))
    with caplog.at_level(logging.WARNING, logger="memdir.history"):
        add(place, "Second")
    said = [r.getMessage() for r in caplog.records if r.name == "memdir.history"]
    assert len(said) == 1 and "there was no history of" in said[0] and "deleted or emptied" in said[0]


def test_a_history_folder_memdir_cannot_write_names_the_setting(place: Place) -> None:
    folder = Path(history_path(str(place.memory), str(place.home))).parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder", encoding="utf-8")
    refused = add(place, "First", ok=False)
    assert refused.exit_code != 0  # type: ignore[attr-defined]
    assert "memdir.history" in refused.output and "Traceback" not in refused.output  # type: ignore[attr-defined]
    assert not (place.memory / "project_first.md").exists()
