import os

import pytest

from memdir.background.file_tools import MemoryFileTools
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir


@pytest.fixture
def sandbox(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    store.save(Memory(name="Role", description="Backend lead", type=MemoryType.USER, body="Leads payments."))
    tools = MemoryFileTools(store)
    return store, tools, {tool.spec.name: tool for tool in tools.tools()}


def test_read_numbers_lines_and_accepts_absolute_and_relative_paths(sandbox):
    store, _, by_name = sandbox
    absolute = by_name["Read"]({"file_path": os.path.join(store.root, "user_role.md")})
    relative = by_name["Read"]({"file_path": "user_role.md"})
    assert not absolute.is_error and absolute.content == relative.content
    assert "     1\t---" in absolute.content


def test_write_and_edit_change_files_and_are_recorded(sandbox):
    store, tools, by_name = sandbox
    target = os.path.join(store.root, "feedback_x.md")
    assert not by_name["Write"]({"file_path": target, "content": "one two"}).is_error
    assert not by_name["Edit"]({"file_path": target, "old_string": "two", "new_string": "three"}).is_error
    with open(target, encoding="utf-8") as handle:
        assert handle.read() == "one three"
    assert tools.written == [target]


@pytest.mark.parametrize(
    "path", ["../outside.md", "/etc/passwd", "/tmp/x.md", "sub/../../x.md", "a\\b.md", "C:\\x.md", "x\0.md"]
)
def test_paths_outside_the_directory_are_refused_with_a_clear_tool_error(sandbox, path):
    store, tools, by_name = sandbox
    outcome = by_name["Write"]({"file_path": path, "content": "x"})
    assert outcome.is_error
    assert "memory directory" in outcome.content
    assert tools.denials and tools.denials[0].tool == "Write"
    assert not os.path.exists(os.path.join(os.path.dirname(store.root), "outside.md"))


def test_a_symlink_out_of_the_directory_is_refused(sandbox, tmp_path):
    store, _, by_name = sandbox
    outside = tmp_path / "precious.md"
    outside.write_text("keep", encoding="utf-8")
    os.symlink(outside, os.path.join(store.root, "link.md"))
    outcome = by_name["Write"]({"file_path": "link.md", "content": "overwritten"})
    assert outcome.is_error
    assert outside.read_text(encoding="utf-8") == "keep"
    assert by_name["Read"]({"file_path": "link.md"}).is_error


def test_edit_errors_say_how_to_fix_the_call(sandbox):
    _, _, by_name = sandbox
    missing = by_name["Edit"]({"file_path": "user_role.md", "old_string": "nope", "new_string": "x"})
    assert missing.is_error and "not found" in missing.content
    twice = by_name["Edit"]({"file_path": "user_role.md", "old_string": "e", "new_string": "E"})
    assert twice.is_error and "replace_all" in twice.content


def test_internal_files_cannot_be_written(sandbox):
    _, _, by_name = sandbox
    assert by_name["Write"]({"file_path": ".memdir.lock", "content": ""}).is_error
    assert by_name["Write"]({"file_path": ".consolidate-lock", "content": ""}).is_error


def test_writable_files_restrict_changes_to_one_file(tmp_path):
    store = MemoryDir(tmp_path)
    (tmp_path / "notes.md").write_text("# A\n_x_\n", encoding="utf-8")
    tools = MemoryFileTools(store, allowed=("Edit",), writable_files={str(tmp_path / "notes.md")})
    (edit,) = tools.tools()
    assert edit.spec.name == "Edit"
    assert edit({"file_path": str(tmp_path / "other.md"), "old_string": "", "new_string": "x"}).is_error
    assert not edit({"file_path": str(tmp_path / "notes.md"), "old_string": "_x_", "new_string": "_x_\nok"}).is_error


def test_grep_glob_ls_and_delete(sandbox):
    store, tools, by_name = sandbox
    assert by_name["Grep"]({"pattern": "payments"}).content == os.path.join(store.root, "user_role.md")
    assert "user_role.md:" in by_name["Grep"]({"pattern": "pay", "output_mode": "content"}).content
    assert by_name["Glob"]({"pattern": "*.md"}).content.endswith("user_role.md")
    listing = by_name["LS"]({}).content.split("\n")
    assert listing == ["MEMORY.md", "user_role.md"]
    deleted = by_name["Delete"]({"file_path": "user_role.md"})
    assert not deleted.is_error and "MEMORY.md" in deleted.content
    assert "user_role.md" not in store.index_text()
    assert tools.deleted == [os.path.join(store.root, "user_role.md")]


def test_the_team_secret_guard_refuses_a_secret_in_team_memory(tmp_path):
    from memdir.config import team_secret_guard

    store = MemoryDir(tmp_path, write_guards=(team_secret_guard,))
    tools = MemoryFileTools(store)
    write = next(t for t in tools.tools() if t.spec.name == "Write")
    token = "ghp_" + "a1B2c3D4e5" * 3 + "F6g7H8"
    outcome = write({"file_path": "team/creds.md", "content": f"token: {token}\n"})
    assert outcome.is_error and "GitHub PAT" in outcome.content and token not in outcome.content
    assert not (tmp_path / "team" / "creds.md").exists()
    assert not write({"file_path": "private.md", "content": f"token: {token}\n"}).is_error


def test_files_inside_hidden_directories_cannot_be_written(sandbox):
    store, _, by_name = sandbox
    result = by_name["Write"]({"file_path": os.path.join(store.root, ".git", "hooks", "post-checkout"), "content": "x"})
    assert result.is_error and "hidden directory" in result.content
    assert not os.path.exists(os.path.join(store.root, ".git"))


def test_delete_cannot_remove_the_index_when_it_is_read_only(tmp_path):
    store = MemoryDir(tmp_path / "mem", index_read_only="MEMORY.md is read-only in daily-log mode")
    store.ensure()
    (tmp_path / "mem" / "MEMORY.md").write_text("- [A](a.md) - a\n", encoding="utf-8")
    by_name = {tool.spec.name: tool for tool in MemoryFileTools(store).tools()}
    result = by_name["Delete"]({"file_path": "MEMORY.md"})
    assert result.is_error and "read-only" in result.content
    assert (tmp_path / "mem" / "MEMORY.md").exists()


def test_glob_survives_a_dangling_symlink(sandbox):
    store, _, by_name = sandbox
    os.symlink(os.path.join(store.root, "gone.md"), os.path.join(store.root, "dangling.md"))
    result = by_name["Glob"]({"pattern": "*.md"})
    assert not result.is_error
    assert os.path.join(store.root, "user_role.md") in result.content
