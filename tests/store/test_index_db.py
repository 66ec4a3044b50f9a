import contextlib
import os
import sqlite3
import time

import pytest

from memdir.config import open_index, resolve_config
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.store.index_db import IndexedMemoryDir, MemoryIndex, index_path
from memdir.store.scan import scan_memory_files


def save(store, name, description, body="", kind=MemoryType.PROJECT):
    return store.save(Memory(name=name, description=description, type=kind, body=body), index=False)


@pytest.fixture
def store(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    save(store, "Real DB", "Integration tests must hit a real database", "Never mock the database.")
    save(store, "Release freeze", "Mobile release freeze from 2026-03-05", "No API changes after the freeze.")
    save(store, "Role", "User is a backend lead", kind=MemoryType.USER)
    return store


@pytest.fixture
def index(store, tmp_path):
    with MemoryIndex(store.root, str(tmp_path / "idx" / "index.sqlite3")) as index:
        yield index


def test_the_default_location_is_under_the_config_home_and_outside_the_memory_dir(tmp_path):
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "home")}

    def located(directory):
        return open_index(resolve_config(str(tmp_path), memory_dir=directory, env=env)).path

    path = located(str(tmp_path / "mem"))
    assert path.startswith(str(tmp_path / "home" / "memdir" / "index") + os.sep)
    assert path.endswith(".sqlite3")
    assert located(str(tmp_path / "mem") + "/") == path == index_path(str(tmp_path / "mem"), str(tmp_path / "home"))
    assert located(str(tmp_path / "other")) != path


def test_headers_mirror_the_header_scan(store, index):
    stats = index.refresh()
    assert (stats.added, stats.updated, stats.removed) == (3, 0, 0)
    assert index.headers() == scan_memory_files(store.root, max_files=None)


def test_a_refresh_reads_only_what_changed(store, index):
    index.refresh()
    save(store, "New one", "Staging deploys need a ticket")
    store.delete("user_role.md")
    path = store.resolve("project_real_db.md")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("Also seed the fixtures.\n")
    stats = index.refresh()
    assert (stats.added, stats.updated, stats.removed, stats.unchanged) == (1, 1, 1, 1)
    assert {h.filename for h in index.headers()} == {
        "project_real_db.md",
        "project_release_freeze.md",
        "project_new_one.md",
    }
    assert "seed the fixtures" in (index.body("project_real_db.md") or "")
    assert index.refresh().changed == 0


def test_the_index_survives_a_new_process(store, index, tmp_path):
    index.refresh()
    index.close()
    with MemoryIndex(store.root, index.path) as again:
        assert again.refresh().unchanged == 3
        assert len(again.headers()) == 3


def test_a_corrupt_index_is_rebuilt(store, index):
    index.refresh()
    index.close()
    with open(index.path, "wb") as handle:
        handle.write(b"this is not a database" * 100)
    with MemoryIndex(store.root, index.path) as again:
        assert len(again.headers()) == 3
        assert again.search("database")[0][0] == "project_real_db.md"


def test_an_index_of_another_directory_is_replaced(store, index, tmp_path):
    index.refresh()
    index.close()
    other = MemoryDir(tmp_path / "other")
    save(other, "Only", "The only memory here")
    with MemoryIndex(other.root, index.path) as again:
        assert [h.filename for h in again.headers()] == ["project_only.md"]


def test_search_ranks_with_fts5_bm25(index):
    results = index.search("which database do the integration tests use?")
    assert results[0][0] == "project_real_db.md"
    assert all(score > 0 for _, score in results)
    assert index.search("kiwi banana") == []
    assert index.search("???") == []


def test_vectors_are_cached_by_hash_and_model(index):
    index.put_vectors({"h1": b"\x00\x01", "h2": b"\x02"}, "m")
    assert index.get_vectors(["h1", "h2", "h3"], "m") == {"h1": b"\x00\x01", "h2": b"\x02"}
    assert index.get_vectors(["h1"], "other") == {}


def test_a_changed_directory_is_noticed_without_waiting_for_the_interval(store, tmp_path):
    ticks = [0.0]
    with MemoryIndex(store.root, str(tmp_path / "i.sqlite3"), refresh_interval=60, clock=lambda: ticks[0]) as index:
        assert len(index.headers()) == 3
        first = index.headers()
        assert index.headers() is first
        save(store, "Later", "Added afterwards")
        st = os.stat(store.root)
        os.utime(store.root, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert len(index.headers()) == 4


def test_an_in_place_edit_is_seen_after_the_refresh_interval(store, tmp_path):
    ticks = [0.0]
    with MemoryIndex(store.root, str(tmp_path / "i.sqlite3"), refresh_interval=5, clock=lambda: ticks[0]) as index:
        index.headers()
        path = store.resolve("user_role.md")
        st = os.stat(path)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("---\nname: Role\ndescription: User is a frontend lead now\ntype: user\n---\n")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        dir_st = os.stat(store.root)
        os.utime(store.root, ns=(dir_st.st_atime_ns, dir_st.st_mtime_ns))
        ticks[0] = 10.0
        by_name = {h.filename: h for h in index.headers()}
        assert by_name["user_role.md"].description == "User is a frontend lead now"


def edit_in_place(store, file, description):
    """Rewrite a memory in place, leaving its directory's mtime as it was (as an edit in place does)."""
    path = store.resolve(file)
    st, dir_st = os.stat(path), os.stat(store.root)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f"---\nname: Role\ndescription: {description}\ntype: user\n---\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    os.utime(store.root, ns=(dir_st.st_atime_ns, dir_st.st_mtime_ns))


def indexed_then_edited(store, tmp_path):
    """An index that held the store, then an edit in place it has not seen: the index's path."""
    db = str(tmp_path / "i.sqlite3")
    with MemoryIndex(store.root, db) as index:
        index.refresh()
    edit_in_place(store, "user_role.md", "User is a frontend lead now")
    return db


def test_a_new_process_catching_up_a_small_store_sees_an_in_place_edit_at_once(store, tmp_path):
    db = indexed_then_edited(store, tmp_path)
    with MemoryIndex(store.root, db) as fresh:
        assert fresh.catch_up() and not fresh.verify_due
        assert fresh.headers_by_files(["user_role.md"])["user_role.md"].description == "User is a frontend lead now"


def test_a_deferred_catch_up_reads_changed_directories_now_and_checks_every_file_when_verified(store, tmp_path):
    db = indexed_then_edited(store, tmp_path)
    with MemoryIndex(store.root, db) as fresh:
        assert fresh.catch_up(defer_work=True) and fresh.verify_due and not fresh.background_due
        assert fresh.headers_by_files(["user_role.md"])["user_role.md"].description == "User is a backend lead"
        assert fresh.verify() and not fresh.verify_due
        assert fresh.headers_by_files(["user_role.md"])["user_role.md"].description == "User is a frontend lead now"
        assert not fresh.verify()  # nothing changed since
    later = save(store, "Later", "Added afterwards")
    st = os.stat(store.root)
    os.utime(store.root, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with MemoryIndex(store.root, db) as fresh:
        assert fresh.catch_up(defer_work=True) and fresh.verify_due
        assert fresh.headers_by_files([later.file])[later.file].description == "Added afterwards"


def test_a_watched_directory_skips_the_timed_refresh_until_its_watch_hears_a_change(store, tmp_path):
    from memdir.store.history_watch import ExternalWatch

    ticks = [0.0]
    watch = ExternalWatch(store.root, str(tmp_path / "history.sqlite3")).start()
    try:
        with MemoryIndex(store.root, str(tmp_path / "i.sqlite3"), refresh_interval=5, clock=lambda: ticks[0]) as index:
            index.headers()
            ticks[0] = 10.0
            assert index.ensure_fresh() is None  # the watch heard nothing: no stat of every file
            edit_in_place(store, "user_role.md", "User is a frontend lead now")
            deadline = time.monotonic() + 30
            while watch.batches == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert index.ensure_fresh() is not None
            by_name = {h.filename: h for h in index.headers()}
            assert by_name["user_role.md"].description == "User is a frontend lead now"
    finally:
        watch.stop()
    ticks[0] = 20.0
    with MemoryIndex(store.root, str(tmp_path / "i.sqlite3"), refresh_interval=5, clock=lambda: ticks[0]) as index:
        index.headers()
        ticks[0] = 30.0
        assert index.ensure_fresh() is not None  # no watch: the timed refresh runs


def test_unreadable_files_are_skipped(store, index):
    with open(os.path.join(store.root, "binary.md"), "wb") as handle:
        handle.write(b"\x00\x01\x02" * 10)
    stats = index.refresh()
    assert stats.skipped == 1
    assert "binary.md" not in {h.filename for h in index.headers()}


def test_an_indexed_memory_dir_scans_through_the_index(store, tmp_path):
    index = MemoryIndex(store.root, str(tmp_path / "i.sqlite3"))
    indexed = IndexedMemoryDir(store.root, index=index, scan_cap=2)
    assert len(indexed.scan()) == 2
    assert len(indexed.headers()) == 3
    assert [h.filename for h in indexed.headers()] == [h.filename for h in store.headers()]
    index.close()


def test_rebuild_starts_from_scratch(store, index):
    index.refresh()
    index.put_vectors({"h": b"\x00"}, "m")
    stats = index.rebuild()
    assert stats.added == 3
    assert index.get_vectors(["h"], "m") == {}
    with contextlib.closing(sqlite3.connect(index.path)) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 3


def test_recall_covers_the_whole_store_when_the_scan_cap_is_lifted(tmp_path):
    from memdir.recall.recaller import Recaller

    root = tmp_path / "big"
    store = MemoryDir(root)
    save(store, "Oldest", "The zeppelin hangar key is under the blue mat")
    old = store.resolve("project_oldest.md")
    os.utime(old, (1_000_000, 1_000_000))
    for i in range(205):
        save(store, f"Filler {i}", f"Routine note number {i} about lunch")
    index = MemoryIndex(store.root, str(tmp_path / "i.sqlite3"))
    query = "where is the zeppelin hangar key?"
    capped = Recaller(IndexedMemoryDir(root, index=index)).select(query)
    whole = Recaller(IndexedMemoryDir(root, index=index, scan_cap=None)).select(query)
    assert capped.files == ()
    assert whole.files == ("project_oldest.md",)
    index.close()
