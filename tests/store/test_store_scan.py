import os

from memdir.store.scan import ScanCache, scan_memory_files


def write(path, text, mtime=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def test_scan_lists_markdown_files_newest_first_except_indexes(tmp_path):
    write(tmp_path / "old.md", "---\ndescription: old one\ntype: user\n---\nbody", mtime=1000)
    write(tmp_path / "new.md", "---\ndescription: new one\ntype: feedback\n---\nbody", mtime=2000)
    write(tmp_path / "team" / "shared.md", "---\ndescription: team\n---\n", mtime=1500)
    write(tmp_path / "MEMORY.md", "- [x](new.md)")
    write(tmp_path / "team" / "MEMORY.md", "- [x](shared.md)")
    write(tmp_path / "notes.txt", "ignored")
    headers = scan_memory_files(str(tmp_path))
    assert [h.filename for h in headers] == ["new.md", "team/shared.md", "old.md"]
    assert headers[0].description == "new one"
    assert headers[0].type is not None and headers[0].type.value == "feedback"


def test_scan_caps_the_number_of_files(tmp_path):
    for i in range(12):
        write(tmp_path / f"m{i:02}.md", f"---\ndescription: d{i}\n---\n", mtime=1000 + i)
    headers = scan_memory_files(str(tmp_path), max_files=5)
    assert [h.filename for h in headers] == ["m11.md", "m10.md", "m09.md", "m08.md", "m07.md"]
    assert len(scan_memory_files(str(tmp_path), max_files=None)) == 12


def test_a_capped_scan_reads_only_the_newest_files_and_equals_the_head_of_a_full_scan(tmp_path):
    # Ties on mtime are broken by file name, on both sides of the cap.
    for i in range(40):
        write(tmp_path / f"m{i:02}.md", f"---\ndescription: d{i}\n---\n", mtime=1000 + i // 3)
    cache = ScanCache()
    capped = scan_memory_files(str(tmp_path), max_files=7, cache=cache)
    assert cache.reads == 7
    full = scan_memory_files(str(tmp_path), max_files=None)
    assert capped == full[:7]
    assert [h.filename for h in capped] == ["m39.md", "m36.md", "m37.md", "m38.md", "m33.md", "m34.md", "m35.md"]


def test_frontmatter_closing_after_line_30_gives_no_description(tmp_path):
    long_front = "---\n" + "".join(f"k{i}: v\n" for i in range(30)) + "description: late\n---\nbody"
    write(tmp_path / "late.md", long_front)
    (header,) = scan_memory_files(str(tmp_path))
    assert header.description is None


def test_a_warm_rescan_of_an_unchanged_directory_reads_no_file(tmp_path):
    for i in range(20):
        write(tmp_path / f"m{i}.md", f"---\ndescription: d{i}\n---\n")
    cache = ScanCache()
    scan_memory_files(str(tmp_path), cache=cache)
    assert cache.reads == 20
    scan_memory_files(str(tmp_path), cache=cache)
    assert cache.reads == 20
    write(tmp_path / "m3.md", "---\ndescription: changed and longer\n---\n")
    headers = scan_memory_files(str(tmp_path), cache=cache)
    assert cache.reads == 21
    assert any(h.description == "changed and longer" for h in headers)


def test_scan_skips_symlinks_out_of_the_directory_and_does_not_follow_linked_dirs(tmp_path):
    outside = tmp_path / "outside"
    write(outside / "secret.md", "---\ndescription: outside\n---\n")
    mem = tmp_path / "mem"
    write(mem / "ok.md", "---\ndescription: inside\n---\n")
    (mem / "link.md").symlink_to(outside / "secret.md")
    (mem / "linkdir").symlink_to(outside)
    (mem / "inner.md").symlink_to(mem / "ok.md")
    (mem / "dangling.md").symlink_to(mem / "missing.md")
    names = sorted(h.filename for h in scan_memory_files(str(mem)))
    assert names == ["inner.md", "ok.md"]


def test_scan_of_a_missing_directory_is_empty(tmp_path):
    assert scan_memory_files(str(tmp_path / "nope")) == []


def test_scan_survives_non_utf8_and_bom_and_crlf(tmp_path):
    (tmp_path / "bom.md").write_bytes(b"\xef\xbb\xbf---\r\ndescription: with bom\r\n---\r\nbody")
    (tmp_path / "bad.md").write_bytes(b"---\ndescription: bad \xff bytes\n---\n")
    by_name = {h.filename: h for h in scan_memory_files(str(tmp_path))}
    assert by_name["bom.md"].description == "with bom"
    assert by_name["bad.md"].description is not None
