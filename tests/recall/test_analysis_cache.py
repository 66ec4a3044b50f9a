import json
import os
import sqlite3

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from memdir.cli import cli
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.lexical import Analysis, decode_analysis, encode_analysis
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller
from memdir.store.index_db import IndexedMemoryDir, MemoryIndex
from topic_store import fill


def ranking(db, root, query):
    index = MemoryIndex(root, str(db))
    try:
        recaller = Recaller(IndexedMemoryDir(root, index=index, scan_cap=None), selector=LexicalSelector(cache=index))
        return recaller.select(query, limit=5).files
    finally:
        index.close()


def stored(db):
    """The analyses the stored postings were made from, by memory path."""
    with sqlite3.connect(db) as conn:
        root = conn.execute("SELECT value FROM meta WHERE key='root'").fetchone()[0]
        rows = conn.execute("SELECT file, terms FROM lex_docs").fetchall()
    conn.close()
    return {os.path.join(root, file): terms for file, terms in rows}


def test_a_new_process_ranks_from_the_stored_postings_exactly_as_the_first_did(tmp_path):
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
        conn.execute("UPDATE lex_docs SET terms = 'not json' WHERE file LIKE '%search%'")
    conn.close()
    assert ranking(db, root, "search review checklist") == expected


def test_a_lexical_selector_without_the_index_needs_no_cache(tmp_path):
    store = fill(str(tmp_path / "mem"), count=10)
    assert Recaller(store, selector=LexicalSelector()).select("billing review").files


@given(
    terms=st.dictionaries(
        st.text(alphabet=st.characters(categories=["Ll", "Lo", "Nd"]), min_size=1, max_size=12),
        st.sampled_from([0.5, 1.0, 2.5, 3.0, 5.5, 42.0]),
        max_size=40,
    ),
    length=st.floats(min_value=0, max_value=1e6, allow_nan=False),
)
def test_a_stored_analysis_decodes_to_the_same_terms_and_length(terms, length):
    doc = Analysis(key=(1.5, 10), terms=terms, length=length)
    assert decode_analysis(encode_analysis(doc), (1.5, 10)) == doc


def test_reindex_stores_the_postings_a_hook_would_otherwise_make(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    root = str(tmp_path / "mem")
    fill(root)
    result = CliRunner().invoke(cli, ["--memory-dir", root, "reindex", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(stored(json.loads(result.stdout)["index"])) == 80


def test_analyses_are_stored_in_batches_as_they_are_made(tmp_path, monkeypatch):
    import memdir.recall.lexical as lexical

    monkeypatch.setattr(lexical, "_CACHE_BATCH", 16)
    root = str(tmp_path / "mem")
    fill(root)
    db = tmp_path / "index.sqlite3"
    index = MemoryIndex(root, str(db))
    try:  # with a scan cap, recall ranks the capped headers in memory, from the stored analyses
        capped = Recaller(IndexedMemoryDir(root, index=index, scan_cap=100), selector=LexicalSelector(cache=index))
        assert capped.select("release review checklist", limit=5).files
    finally:
        index.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM analyses").fetchone()[0] == 80
    conn.close()
