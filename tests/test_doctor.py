import os

import pytest

from memdir.doctor.checks import check_memory_dir
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir


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


def write(mem, name, text):
    mem.mkdir(parents=True, exist_ok=True)
    (mem / name).write_text(text, encoding="utf-8")


def test_an_oversized_index_is_reported_as_a_problem_not_an_exception(tmp_path):
    mem = tmp_path / "mem"
    write(mem, "user_a.md", "---\nname: A\ndescription: a\ntype: user\n---\n")
    write(mem, "MEMORY.md", "- [A](user_a.md) — a\n" + "filler line of prose\n" * 60_000)
    for fix in (False, True):
        report = check_memory_dir(MemoryDir(mem), fix=fix)
        assert [(p.file, p.rule) for p in report.problems] == [("MEMORY.md", "too-large")]
        assert "bytes (limit 1000000)" in report.problems[0].message


def test_a_fifo_named_like_a_memory_is_reported_without_blocking(tmp_path):
    mem = tmp_path / "mem"
    write(mem, "user_a.md", "---\nname: A\ndescription: a\ntype: user\n---\n")
    write(mem, "MEMORY.md", "- [A](user_a.md) — a\n")
    os.mkfifo(mem / "pipe.md")
    report = check_memory_dir(MemoryDir(mem))
    assert [(p.file, p.rule) for p in report.problems] == [("pipe.md", "not-a-file")]
    assert "pipe.md" in report.problems[0].message


@pytest.mark.parametrize(
    ("frontmatter", "rule", "line"),
    [
        ("name: A\ndescription: [unclosed\ntype: user\n", "unquoted-value", 3),
        ("name: A\ndescription: {a: b\ntype: user\n", "unquoted-value", 3),
        ("name: A\ndescription: [one, two]\ntype: user\n", "not-text", None),
        ("name: 42\ndescription: a\ntype: user\n", "not-text", None),
        ("name: A\ndescription: |\n  first\n  second\ntype: user\n", "multiline-description", 3),
        ("name: A\ndescription: first\n  and second\ntype: user\n", "multiline-description", 3),
    ],
)
def test_frontmatter_values_that_are_not_plain_text_are_flagged_and_never_indexed(tmp_path, frontmatter, rule, line):
    mem = tmp_path / "mem"
    write(mem, "user_a.md", f"---\n{frontmatter}---\n\nbody\n")
    report = check_memory_dir(MemoryDir(mem), fix=True)
    found = [(p.rule, p.line) for p in report.problems if p.rule != "index-missing"]
    assert found == [(rule, line)]
    assert not (mem / "MEMORY.md").exists()


def test_fix_adds_thousands_of_lines_in_batches_keeping_prose_and_dropping_dangling_lines(tmp_path):
    mem = tmp_path / "mem"
    for n in range(2_500):
        write(mem, f"user_n{n:04}.md", f"---\nname: N{n}\ndescription: note {n}\ntype: user\n---\n")
    write(mem, "MEMORY.md", "# My notes\n\n- [Gone](gone.md) — was here\n- [N7 as I wrote it](user_n0007.md) — mine\n")
    report = check_memory_dir(MemoryDir(mem), fix=True)
    assert [p.rule for p in report.problems] == ["index-truncated"] and report.fixed == ("MEMORY.md",)
    lines = (mem / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["# My notes", "", "- [N7 as I wrote it](user_n0007.md) — mine"]
    assert len(lines) == 3 + 2_499
    assert lines[3] == "- [N0](user_n0000.md) — note 0" and lines[-1] == "- [N2499](user_n2499.md) — note 2499"


def store_of(mem, count, *, hook):
    """``count`` memories, listed in MEMORY.md with index lines of the given hook (as a person or a
    model might have written them, longer than memdir writes them)."""
    lines = []
    for n in range(count):
        write(mem, f"user_n{n:03}.md", f"---\nname: N{n}\ndescription: {hook} {n}\ntype: user\n---\n\nbody {n}\n")
        lines.append(f"- [N{n}](user_n{n:03}.md) — {hook} {n}")
    write(mem, "MEMORY.md", "\n".join(lines) + "\n")


def test_doctor_names_where_claude_code_cuts_the_index_and_the_memories_past_the_cut(tmp_path):
    mem = tmp_path / "mem"
    store_of(mem, 204, hook="note")
    report = check_memory_dir(MemoryDir(mem))
    [problem] = report.problems
    assert (problem.file, problem.line, problem.rule) == ("MEMORY.md", 200, "index-truncated")
    assert "204 lines, over the 200-line limit: Claude Code loads only up to line 200" in problem.message
    assert "the 4 memories listed after it (user_n200.md, user_n201.md, user_n202.md, user_n203.md)" in problem.message


def test_doctor_fix_compacts_long_index_lines_until_claude_code_loads_the_whole_index(tmp_path):
    mem = tmp_path / "mem"
    store_of(mem, 190, hook="when this matters and why, in more words than an index line needs " * 2)
    memories = {path.name: path.read_bytes() for path in mem.glob("user_*.md")}
    assert [p.rule for p in check_memory_dir(MemoryDir(mem)).problems] == ["index-truncated"]
    report = check_memory_dir(MemoryDir(mem), fix=True)
    assert report.ok and report.fixed == ("MEMORY.md",)
    index = (mem / "MEMORY.md").read_text(encoding="utf-8")
    assert len(index.splitlines()) == 190 and all(len(line) <= 150 for line in index.splitlines())
    assert {path.name: path.read_bytes() for path in mem.glob("user_*.md")} == memories


def test_doctor_measures_the_index_as_the_release_does_when_told_to_skip_comments(tmp_path):
    mem = tmp_path / "mem"
    store_of(mem, 199, hook="note")
    index = mem / "MEMORY.md"
    index.write_text("<!--\nkept\nfor\nthe team\n-->\n" + index.read_text(encoding="utf-8"), encoding="utf-8")
    assert [p.rule for p in check_memory_dir(MemoryDir(mem)).problems] == ["index-truncated"]
    assert check_memory_dir(MemoryDir(mem), skip_index_comments=True).ok
