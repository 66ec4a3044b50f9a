from memdir.doctor import check_memory_dir
from memdir.model.memory import Memory, MemoryType
from memdir.store.memdir import MemoryDir


def build_bad_store(tmp_path):
    mem = tmp_path / "mem"
    store = MemoryDir(mem)
    store.save(Memory(name="Good", description="A healthy memory", type=MemoryType.USER, body="fine"))
    (mem / "yaml.md").write_text('---\nname: "unterminated\ndescription: y\n---\nbody', encoding="utf-8")
    (mem / "nofront.md").write_text("just text\n", encoding="utf-8")
    (mem / "unknown_type.md").write_text("---\nname: x\ndescription: y\ntype: note\n---\n", encoding="utf-8")
    (mem / "missing.md").write_text("---\ntype: user\n---\nbody\n", encoding="utf-8")
    (mem / "latin1.md").write_bytes("---\nname: café\n---\n".encode("latin-1"))
    (mem / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with open(mem / "huge.md", "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: o\ndescription: o\ntype: user\n---\n", encoding="utf-8")
    (mem / "escape.md").symlink_to(outside)
    (mem / "dangling.md").symlink_to(mem / "nowhere.md")
    return store


def test_doctor_names_each_bad_file_and_its_rule(tmp_path):
    store = build_bad_store(tmp_path)
    before = store.index_text()
    good_before = (tmp_path / "mem" / "user_good.md").read_bytes()
    report = check_memory_dir(store)
    found = {(p.file, p.rule) for p in report.problems}
    assert ("yaml.md", "yaml") in found
    assert ("nofront.md", "no-frontmatter") in found
    assert any(f == "unknown_type.md" and "type" in r for f, r in found)
    assert any(f == "missing.md" and "description" in r for f, r in found)
    assert ("latin1.md", "encoding") in found
    assert ("binary.md", "binary") in found
    assert ("huge.md", "too-large") in found
    assert ("escape.md", "symlink-escape") in found
    assert ("dangling.md", "dangling-symlink") in found
    assert not any(p.file == "user_good.md" and p.rule != "index-missing" for p in report.problems)
    for problem in report.problems:
        assert problem.file in problem.message or problem.file == "MEMORY.md"
    assert store.index_text() == before
    assert (tmp_path / "mem" / "user_good.md").read_bytes() == good_before


def test_doctor_fix_never_touches_memory_files(tmp_path):
    store = build_bad_store(tmp_path)
    snapshot = {
        p.name: p.read_bytes()
        for p in (tmp_path / "mem").iterdir()
        if p.is_file() and not p.is_symlink() and p.name not in ("MEMORY.md", "huge.md")
    }
    check_memory_dir(store, fix=True)
    after = {
        p.name: p.read_bytes()
        for p in (tmp_path / "mem").iterdir()
        if p.is_file() and not p.is_symlink() and p.name not in ("MEMORY.md", "huge.md")
    }
    assert after == snapshot


def test_a_healthy_store_is_ok(tmp_path):
    store = MemoryDir(tmp_path)
    store.save(Memory(name="Good", description="A healthy memory", type=MemoryType.USER, body="fine"))
    assert check_memory_dir(store).ok
