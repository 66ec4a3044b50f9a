import json
import os

from memdir.store.scan import ScanCache, cache_file_path, scan_memory_files


def write(path, text, mtime):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))


def fill(root):
    write(root / "a.md", "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\nSteps here.\n", 1000)
    write(root / "b.md", "---\ndescription: 数据库迁移的注意事项\nmetadata:\n  type: feedback\n---\n先备份。\n", 2000)
    write(root / "sub" / "c.md", "no frontmatter at all\n", 3000)


def scan(root, path):
    cache = ScanCache(str(path))
    return scan_memory_files(str(root), cache=cache), cache


def test_a_new_process_takes_the_headers_from_the_file_and_reads_no_memory(tmp_path):
    root = tmp_path / "mem"
    fill(root)
    path = tmp_path / "home" / "headers.json"
    first, cache = scan(root, path)
    assert cache.reads == 3 and cache.writes == 1
    again, cache = scan(root, path)
    assert again == first == scan_memory_files(str(root))
    assert cache.reads == 0 and cache.writes == 0
    assert [h.type.value if h.type else None for h in again] == [None, "feedback", "project"]
    assert again[1].description == "数据库迁移的注意事项" and again[1].nested_type


def test_an_edited_memory_is_read_again_and_a_deleted_one_leaves_the_file(tmp_path):
    root = tmp_path / "mem"
    fill(root)
    path = tmp_path / "headers.json"
    scan(root, path)
    write(root / "a.md", "---\nname: Deploy\ndescription: how we deploy now\ntype: project\n---\n", 4000)
    os.remove(root / "sub" / "c.md")
    headers, cache = scan(root, path)
    assert headers == scan_memory_files(str(root)) and headers[0].description == "how we deploy now"
    assert cache.reads == 1 and cache.writes == 1
    stored = json.loads(path.read_text(encoding="utf-8"))["headers"]
    assert sorted(os.path.basename(p) for p in stored) == ["a.md", "b.md"]


def test_a_corrupt_file_or_entries_of_the_wrong_shape_are_ignored_and_replaced(tmp_path):
    root = tmp_path / "mem"
    fill(root)
    expected = scan_memory_files(str(root))
    path = tmp_path / "headers.json"
    for garbage in (b"\xff\x00", b"[" * 100_000, b'{"format": 999, "headers": {}}'):
        path.write_bytes(garbage)
        headers, cache = scan(root, path)
        assert headers == expected and cache.reads == 3 and cache.writes == 1
    data = json.loads(path.read_text(encoding="utf-8"))
    keys = sorted(data["headers"])
    data["headers"][keys[0]] = "not a header"
    data["headers"][keys[1]][4] = "no-such-type"
    data["headers"][keys[2]][0] = "1000"
    path.write_text(json.dumps(data), encoding="utf-8")
    headers, cache = scan(root, path)
    assert headers == expected and cache.reads == 3


def test_a_location_that_cannot_be_written_changes_nothing_but_speed(tmp_path):
    root = tmp_path / "mem"
    fill(root)
    blocker = tmp_path / "home"
    blocker.write_text("in the way", encoding="utf-8")
    headers, cache = scan(root, blocker / "memdir" / "headers.json")
    assert headers == scan_memory_files(str(root)) and cache.writes == 0
    assert blocker.read_text(encoding="utf-8") == "in the way"


def test_a_scan_that_changed_nothing_writes_nothing(tmp_path):
    root = tmp_path / "mem"
    fill(root)
    path = tmp_path / "headers.json"
    _, cache = scan(root, path)
    before = path.stat().st_mtime_ns
    scan_memory_files(str(root), cache=cache)
    assert cache.writes == 1 and path.stat().st_mtime_ns == before


def test_cache_files_live_under_the_config_home_one_per_directory_and_kind(tmp_path):
    home = str(tmp_path / "claude")
    a = cache_file_path(str(tmp_path / "a" / "memory") + os.sep, home, "headers")
    assert a.startswith(os.path.join(home, "memdir", "headers") + os.sep) and a.endswith(".json")
    assert a == cache_file_path(str(tmp_path / "a" / "memory"), home, "headers")
    assert a != cache_file_path(str(tmp_path / "b" / "memory"), home, "headers")
    assert cache_file_path(str(tmp_path / "a" / "memory"), home, "analyses") != a


def test_directories_whose_sanitised_names_agree_still_get_a_cache_file_each(tmp_path):
    home = str(tmp_path / "claude")
    dashed = cache_file_path(str(tmp_path / "a-b" / "memory"), home, "headers")
    underscored = cache_file_path(str(tmp_path / "a_b" / "memory"), home, "headers")
    assert dashed != underscored


def test_recorded_relations_come_back_from_the_file(tmp_path):
    root = tmp_path / "mem"
    text = "---\nname: New\ndescription: d\ntype: project\nreplaces: old.md\ndistinct-from: other.md\n---\nx\n"
    write(root / "new.md", text, 1000)
    path = tmp_path / "headers.json"
    scan(root, path)
    [header], cache = scan(root, path)
    assert cache.reads == 0
    assert header.replaces == ("old.md",) and header.distinct == ("other.md",)


def test_a_rewrite_that_puts_the_old_time_back_at_the_same_size_is_read_again(tmp_path):
    root = tmp_path / "mem"
    write(root / "a.md", "---\nname: A\ndescription: d\ntype: project\nreplaces: b.md\n---\nx\n", 1000)
    path = tmp_path / "headers.json"
    scan(root, path)
    stat = os.stat(root / "a.md")
    (root / "a.md").write_text("---\nname: A\ndescription: d\ntype: project\nreplaces: c.md\n---\nx\n", "utf-8")
    os.utime(root / "a.md", ns=(stat.st_mtime_ns, stat.st_mtime_ns))
    assert os.stat(root / "a.md").st_size == stat.st_size
    [header], cache = scan(root, path)
    assert header.replaces == ("c.md",) and cache.reads == 1
