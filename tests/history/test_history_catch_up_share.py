"""A directory the history has never seen is recorded a share at a time, so no save waits for all of it."""

from __future__ import annotations

import pytest
from history_place import Place

from memdir.config import open_memory_dir, resolve_config
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.history import RUN_SYNC_BUDGET
from memdir.store.provenance import acting_as

MEMORY = Memory(name="New", description="A memory saved by the API", type=MemoryType.USER, body="Saved.")


def files_recorded(place: Place) -> int:
    db = place.history()
    try:
        return int(db._connect().execute("SELECT COUNT(DISTINCT file) FROM versions").fetchone()[0])
    finally:
        db.close()


@pytest.fixture
def unseen(place: Place) -> int:
    """A directory of files that memdir's history has never seen (copied in, written by hand)."""
    place.memory.mkdir()
    count = RUN_SYNC_BUDGET * 2 + 10
    for i in range(count):
        (place.memory / f"note_{i}.md").write_text(f"---\nname: Note {i}\n---\n\nText {i}.\n", encoding="utf-8")
    return count


def test_each_run_records_a_share_of_an_unseen_directory_before_its_first_write(place: Place, unseen: int) -> None:
    directory = open_memory_dir(resolve_config(str(place.project), memory_dir=str(place.memory)))
    shares = []
    for run in range(3):
        with acting_as("api"):
            directory.save(MEMORY, file=f"new_{run}.md")
        shares.append(files_recorded(place))
    # Each run reads its share of the unseen files, and records what it wrote (its memory, and
    # MEMORY.md, which the first save made).
    assert shares == [RUN_SYNC_BUDGET + 2, RUN_SYNC_BUDGET * 2 + 3, unseen + 4]


def test_a_file_written_by_someone_else_is_recorded_before_a_share_of_new_ones(place: Place, unseen: int) -> None:
    directory = open_memory_dir(resolve_config(str(place.project), memory_dir=str(place.memory)))
    place.run("history", "sync")  # every file known now
    (place.memory / "note_7.md").write_text("---\nname: Note 7\n---\n\nEdited by hand.\n", encoding="utf-8")
    with acting_as("api"):
        directory.save(MEMORY, file="new.md")
    rows = place.json("history", "note_7.md")
    assert [(row["change"], row["by"]) for row in rows] == [("edit", "external"), ("create", "external")]  # type: ignore[index]


def test_history_sync_records_the_whole_directory_at_once(place: Place, unseen: int) -> None:
    place.run("history", "sync")
    assert files_recorded(place) == unseen
