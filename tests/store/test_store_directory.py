import os
import pathlib
import re

import pytest

import memdir
from memdir.errors import MemoryExists, MemoryFormatError, MemoryNotFound, UnsafePathError
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.store.names import default_filename, slugify


def feedback(name="Real DB in tests", description="Integration tests hit a real database"):
    return Memory(name=name, description=description, type=MemoryType.FEEDBACK, body="Never mock the database.")


def test_save_writes_the_topic_file_and_an_index_line(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    result = store.save(feedback())
    assert result.file == "feedback_real_db_in_tests.md"
    assert result.created and result.index_changed
    index = store.index_text()
    assert "- [Real DB in tests](feedback_real_db_in_tests.md) — Integration tests hit a real database" in index
    record = store.read(result.file)
    assert record.memory.type is MemoryType.FEEDBACK
    assert record.memory.body.strip() == "Never mock the database."


def test_save_refuses_to_overwrite_without_force_and_replaces_with_force(tmp_path):
    store = MemoryDir(tmp_path)
    store.save(feedback())
    with pytest.raises(MemoryExists):
        store.save(feedback(description="changed"))
    result = store.save(feedback(description="changed"), force=True)
    assert not result.created
    index = store.index_text()
    assert index.count("feedback_real_db_in_tests.md") == 1
    assert "changed" in index


def test_save_refuses_memories_recall_cannot_describe(tmp_path):
    store = MemoryDir(tmp_path)
    with pytest.raises(MemoryFormatError) as info:
        store.save(Memory(name="x", description="", type=MemoryType.USER, body=""))
    assert info.value.rule == "missing-description"
    with pytest.raises(MemoryFormatError):
        store.save(Memory(name="x", description="two\nlines", type=MemoryType.USER, body=""))
    assert not os.listdir(tmp_path) or os.listdir(tmp_path) == [".memdir.lock"]


@pytest.mark.parametrize(
    "name",
    [
        "../escape.md",
        "/etc/passwd.md",
        "a\0b.md",
        "C:\\x.md",
        "\\\\srv\\share\\x.md",
        "//srv/x.md",
        "sub\\x.md",
    ],
)
def test_save_refuses_hostile_file_names_and_writes_nothing(tmp_path, name):
    store = MemoryDir(tmp_path / "mem")
    with pytest.raises(UnsafePathError):
        store.save(feedback(), file=name)
    assert not (tmp_path / "escape.md").exists()


def test_save_refuses_a_symlink_that_points_out_of_the_directory(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("precious", encoding="utf-8")
    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / "evil.md").symlink_to(outside)
    store = MemoryDir(mem)
    with pytest.raises(UnsafePathError):
        store.save(feedback(), file="evil.md", force=True)
    assert outside.read_text(encoding="utf-8") == "precious"


def test_save_refuses_non_markdown_and_index_names(tmp_path):
    store = MemoryDir(tmp_path)
    with pytest.raises(UnsafePathError):
        store.save(feedback(), file="notes.txt")
    with pytest.raises(UnsafePathError):
        store.save(feedback(), file="MEMORY.md")


def test_delete_removes_the_file_and_its_index_line_only(tmp_path):
    store = MemoryDir(tmp_path)
    a = store.save(feedback())
    b = store.save(Memory(name="Role", description="Backend lead", type=MemoryType.USER, body="x"))
    result = store.delete(a.file)
    assert result.deleted and result.index_changed
    index = store.index_text()
    assert a.file not in index and b.file in index
    with pytest.raises(MemoryNotFound):
        store.delete(a.file)


def test_rename_moves_the_file_and_repoints_the_index(tmp_path):
    store = MemoryDir(tmp_path)
    a = store.save(feedback())
    store.rename(a.file, "testing/db.md")
    assert not (tmp_path / a.file).exists()
    assert (tmp_path / "testing" / "db.md").exists()
    assert "(testing/db.md)" in store.index_text()


def test_team_files_are_indexed_in_the_team_index(tmp_path):
    store = MemoryDir(tmp_path)
    store.save(feedback(), file="team/feedback_db.md")
    assert "(feedback_db.md)" in (tmp_path / "team" / "MEMORY.md").read_text(encoding="utf-8")
    assert not (tmp_path / "MEMORY.md").exists()


def test_hand_written_index_content_survives_a_save(tmp_path):
    (tmp_path / "MEMORY.md").write_text("# My memory\n\nSome prose the user wrote.\n", encoding="utf-8")
    store = MemoryDir(tmp_path)
    store.save(feedback())
    index = store.index_text()
    assert index.startswith("# My memory\n\nSome prose the user wrote.\n")


def test_write_guards_can_refuse_a_write_before_anything_changes(tmp_path):
    def refuse(rel, content):
        if "secret" in content:
            raise MemoryFormatError("no secrets", rule="secret")

    store = MemoryDir(tmp_path, write_guards=(refuse,))
    with pytest.raises(MemoryFormatError):
        store.save(Memory(name="x", description="a secret", type=MemoryType.USER, body=""))
    assert not (tmp_path / "MEMORY.md").exists()


def test_read_reports_non_utf8_and_binary_files_clearly(tmp_path):
    (tmp_path / "bad.md").write_bytes(b"---\nname: x\n---\n\xff\xfe")
    (tmp_path / "bin.md").write_bytes(b"\x00\x01\x02")
    store = MemoryDir(tmp_path)
    with pytest.raises(MemoryFormatError) as info:
        store.read("bad.md")
    assert info.value.rule == "encoding"
    with pytest.raises(MemoryFormatError) as info:
        store.read("bin.md")
    assert info.value.rule == "binary"


def test_default_filename_and_slug():
    assert default_filename(MemoryType.USER, "User role") == "user_user_role.md"
    assert slugify("Ünïcode — and punctuation!") == "unicode_and_punctuation"
    assert slugify("!!!") == "memory"


def test_rename_into_team_runs_the_write_guards_on_the_moved_content(tmp_path):
    from memdir.config import team_secret_guard
    from memdir.errors import SecretDetected

    store = MemoryDir(tmp_path / "mem", write_guards=(team_secret_guard,))
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    store.save(Memory(name="ci", description="ci token", type=MemoryType.PROJECT, body=f"token: {token}"), file="ci.md")
    with pytest.raises(SecretDetected) as info:
        store.rename("ci.md", "team/ci.md")
    assert token not in str(info.value)
    assert (tmp_path / "mem" / "ci.md").exists()
    assert not (tmp_path / "mem" / "team" / "ci.md").exists()


def test_a_symlink_into_team_does_not_bypass_the_write_guards(tmp_path):
    from memdir.config import team_secret_guard
    from memdir.errors import SecretDetected

    store = MemoryDir(tmp_path / "mem", write_guards=(team_secret_guard,))
    os.makedirs(tmp_path / "mem" / "team")
    os.symlink(tmp_path / "mem" / "team", tmp_path / "mem" / "shared")
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    with pytest.raises(SecretDetected):
        store.write_text("shared/ci.md", f"token: {token}\n")
    assert not (tmp_path / "mem" / "team" / "ci.md").exists()


def test_the_team_guard_ignores_case_as_macos_file_systems_do():
    from memdir.config import team_secret_guard
    from memdir.errors import SecretDetected

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    with pytest.raises(SecretDetected):
        team_secret_guard("Team/ci.md", f"token: {token}\n")
    team_secret_guard("teams/ci.md", f"token: {token}\n")


def test_headers_lists_every_memory_and_the_deprecated_list_alias_says_the_same(tmp_path):
    store = MemoryDir(tmp_path, scan_cap=1)
    store.save(feedback())
    store.save(feedback(name="Second", description="Another memory"))
    assert len(store.scan()) == 1
    assert [h.filename for h in store.headers()] == [h.filename for h in store.list()]
    assert len(store.headers()) == 2


def test_memdirs_own_code_never_calls_the_deprecated_list_alias():
    source = pathlib.Path(memdir.__file__).parent
    calls = [p.name for p in source.rglob("*.py") if re.search(r"\.list\(\)", p.read_text(encoding="utf-8"))]
    assert calls == [], "call headers(); MemoryDir.list is kept only for existing callers"
