import os
import sqlite3

from memdir.model.memory import Memory, MemoryType
from memdir.recall.recaller import Recaller
from memdir.recall.selectors import LexicalSelector
from memdir.store.index_db import IndexedMemoryDir, MemoryIndex
from memdir.store.memdir import MemoryDir

TOPICS = ["deploy", "database", "release", "billing", "search", "mobile", "auth"]


def fill(root, count=80):
    store = MemoryDir(root)
    for i in range(count):
        topic = TOPICS[i % len(TOPICS)]
        store.save(
            Memory(
                name=f"{topic} note {i}",
                description=f"How the {topic} work goes, note number {i}",
                type=MemoryType.PROJECT,
                body=f"The {topic} checklist item {i} matters for the quarterly {topic} review.",
            ),
            index=False,
        )
    return store


def ranking(db, root, query):
    index = MemoryIndex(root, str(db))
    try:
        recaller = Recaller(IndexedMemoryDir(root, index=index, scan_cap=None))
        return recaller.select(query, limit=5).files
    finally:
        index.close()


def stored(db):
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT path, payload FROM analyses").fetchall()
    conn.close()
    return dict(rows)


def test_a_new_process_ranks_from_stored_analyses_exactly_as_the_first_did(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    db = tmp_path / "index.sqlite3"
    first = ranking(db, root, "what is on the billing review checklist?")
    assert first and all("billing" in name for name in first)
    assert len(stored(db)) == 80
    assert ranking(db, root, "what is on the billing review checklist?") == first


def test_a_changed_memory_is_analysed_again_and_a_deleted_one_forgotten(tmp_path):
    root = str(tmp_path / "mem")
    store = fill(root)
    db = tmp_path / "index.sqlite3"
    ranking(db, root, "billing review")
    path = os.path.join(root, "project_deploy_note_0.md")
    before = stored(db)[path]
    store.save(
        Memory(
            name="deploy note 0",
            description="Kangaroo sightings near the office",
            type=MemoryType.PROJECT,
            body="Seen twice this week.",
        ),
        file="project_deploy_note_0.md",
        index=False,
        force=True,
    )
    assert ranking(db, root, "kangaroo sightings") == ("project_deploy_note_0.md",)
    assert stored(db)[path] != before
    os.remove(os.path.join(root, "project_mobile_note_5.md"))
    ranking(db, root, "mobile review")
    assert os.path.join(root, "project_mobile_note_5.md") not in stored(db)


def test_a_damaged_stored_analysis_is_replaced_not_trusted(tmp_path):
    root = str(tmp_path / "mem")
    fill(root)
    db = tmp_path / "index.sqlite3"
    expected = ranking(db, root, "search review checklist")
    with sqlite3.connect(db) as conn:
        conn.execute('UPDATE analyses SET payload = \'[1, "x y", "0", []]\'')
        conn.execute("UPDATE analyses SET payload = 'not json' WHERE path LIKE '%search%'")
    conn.close()
    assert ranking(db, root, "search review checklist") == expected


def test_a_lexical_selector_without_the_index_needs_no_cache(tmp_path):
    store = fill(str(tmp_path / "mem"), count=10)
    assert Recaller(store, selector=LexicalSelector()).select("billing review").files
