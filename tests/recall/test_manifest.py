import os
from datetime import UTC, datetime

from memdir.model.memory_type import MemoryType
from memdir.model.timefields import iso_mtime
from memdir.recall.manifest import format_manifest
from memdir.store.scan import MemoryHeader


def ms(*args):
    return datetime(*args, tzinfo=UTC).timestamp() * 1000


def test_manifest_matches_the_reference_vector():
    headers = [
        MemoryHeader(
            "feedback_testing.md",
            "/m/feedback_testing.md",
            ms(2026, 3, 9, 8, 30),
            10,
            "Integration tests must hit a real DB",
            MemoryType.FEEDBACK,
        ),
        MemoryHeader("sub/notes.md", "/m/sub/notes.md", ms(2026, 3, 1), 10, None, None),
    ]
    assert format_manifest(headers) == (
        "- [feedback] feedback_testing.md (2026-03-09T08:30:00.000Z): Integration tests must hit a real DB\n"
        "- sub/notes.md (2026-03-01T00:00:00.000Z)"
    )


def test_iso_mtime_keeps_milliseconds():
    assert iso_mtime(ms(2026, 1, 2, 3, 4, 5) + 678.9) == "2026-01-02T03:04:05.678Z"


def test_a_file_with_its_type_nested_in_metadata_is_type_tagged_in_the_manifest(tmp_path):
    import os

    from memdir.store.scan import scan_memory_files

    path = tmp_path / "deploy-window.md"
    path.write_text(
        "---\nname: deploy-window\ndescription: Deploys only on Tuesdays\nmetadata:\n  type: project\n"
        "  node_type: memory\n---\n\nTuesday 10-12 UTC.\n",
        encoding="utf-8",
    )
    os.utime(path, (ms(2026, 11, 20) / 1000, ms(2026, 11, 20) / 1000))
    assert format_manifest(scan_memory_files(str(tmp_path))) == (
        "- [project] deploy-window.md (2026-11-20T00:00:00.000Z): Deploys only on Tuesdays"
    )


def test_a_release_that_reads_no_nested_type_gets_that_file_untagged(tmp_path):
    from memdir.store.scan import scan_memory_files

    (tmp_path / "a.md").write_text("---\ndescription: d\nmetadata:\n  type: user\n---\nx\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("---\ndescription: d\ntype: user\n---\nx\n", encoding="utf-8")
    for name in ("a.md", "b.md"):
        os.utime(tmp_path / name, (0, 0))
    headers = scan_memory_files(str(tmp_path))
    assert format_manifest(headers, nested_types=False).splitlines() == [
        "- a.md (1970-01-01T00:00:00.000Z): d",
        "- [user] b.md (1970-01-01T00:00:00.000Z): d",
    ]
    assert format_manifest(headers).startswith("- [user] a.md")


def test_the_derived_index_gives_a_release_before_2_1_330_the_same_manifest_as_a_scan(tmp_path):
    from memdir.store.index_db import MemoryIndex
    from memdir.store.scan import scan_memory_files

    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / "a.md").write_text("---\ndescription: d\nmetadata:\n  type: user\n---\nx\n", encoding="utf-8")
    (mem / "b.md").write_text("---\ndescription: d\ntype: user\n---\nx\n", encoding="utf-8")
    for name in ("a.md", "b.md"):
        os.utime(mem / name, (0, 0))
    scanned = sorted(format_manifest(scan_memory_files(str(mem)), nested_types=False).splitlines())
    db = str(tmp_path / "index.sqlite3")
    with MemoryIndex(str(mem), db) as index:
        built = sorted(format_manifest(index.headers(), nested_types=False).splitlines())
    with MemoryIndex(str(mem), db) as index:  # a later process reads the headers back from the index
        reloaded = sorted(format_manifest(index.headers(), nested_types=False).splitlines())
    assert built == reloaded == scanned
    assert "- a.md (1970-01-01T00:00:00.000Z): d" in scanned
