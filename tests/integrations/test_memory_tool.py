import json
import os

import anthropic
import anyio
import pytest
from _llm_wire import WireServer, anthropic_message
from anthropic.lib.tools import ToolError
from anthropic.tools.memory import BetaLocalFilesystemMemoryTool

from memdir.integrations.memory_tool.backend import MEMORY_TOOL_BETA, AsyncMemdirMemoryTool, MemdirMemoryTool

ROLE = "---\nname: Role\ndescription: Leads the payments team\ntype: user\n---\n\nPrefers short reviews.\n"


def use(n, **command):
    return {"type": "tool_use", "id": f"toolu_{n:02d}", "name": "memory", "input": command}


def tool_results(wire):
    """Every tool_result block the SDK sent back, in order."""
    results = []
    for body in wire.bodies():
        content = body["messages"][-1]["content"]
        if isinstance(content, list):
            results.extend(block for block in content if block.get("type") == "tool_result")
    return results


def run_script(tool, commands, *, client_cls=anthropic.Anthropic):
    """Drive the SDK's tool runner against a server that issues ``commands`` one turn each."""
    with WireServer() as wire:
        for n, command in enumerate(commands):
            wire.queue(200, anthropic_message([use(n, **command)], stop_reason="tool_use"))
        wire.queue(200, anthropic_message([{"type": "text", "text": "Saved."}]))
        kwargs = dict(
            model="claude-sonnet-4-6",
            max_tokens=1024,
            messages=[{"role": "user", "content": "Remember that I lead the payments team."}],
            tools=[tool],
            betas=[MEMORY_TOOL_BETA],
        )
        if client_cls is anthropic.Anthropic:
            with anthropic.Anthropic(base_url=wire.url, api_key="test", max_retries=0) as client:
                final = client.beta.messages.tool_runner(**kwargs).until_done()
        else:

            async def main():
                async with anthropic.AsyncAnthropic(base_url=wire.url, api_key="test", max_retries=0) as client:
                    with anyio.fail_after(30):
                        return await client.beta.messages.tool_runner(**kwargs).until_done()

            final = anyio.run(main)
        assert final.content[0].text == "Saved."
        requests = wire.requests
        return tool_results(wire), requests


def test_the_tool_runner_drives_memdir_through_the_real_sdk(tmp_path):
    mem = tmp_path / "mem"
    tool = MemdirMemoryTool(str(mem))
    results, requests = run_script(
        tool,
        [
            {"command": "view", "path": "/memories"},
            {"command": "create", "path": "/memories/user_role.md", "file_text": ROLE},
            {"command": "view", "path": "/memories/user_role.md", "view_range": [2, 3]},
            {"command": "create", "path": "/memories/user_role.md", "file_text": "again"},
        ],
    )
    assert requests[0].headers["anthropic-beta"].split(",")[0] == MEMORY_TOOL_BETA
    assert requests[0].body["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    assert [r["tool_use_id"] for r in results] == ["toolu_00", "toolu_01", "toolu_02", "toolu_03"]
    assert results[0]["content"] == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories"
    )
    assert results[1]["content"] == (
        "File created successfully at: /memories/user_role.md\n/memories/MEMORY.md was updated to match."
    )
    assert results[2]["content"] == (
        "Here's the content of /memories/user_role.md with line numbers:\n"
        "     2\tname: Role\n     3\tdescription: Leads the payments team"
    )
    assert results[3] == {
        "type": "tool_result",
        "tool_use_id": "toolu_03",
        "content": "File /memories/user_role.md already exists",
        "is_error": True,
    }
    assert (mem / "user_role.md").read_text(encoding="utf-8") == ROLE
    assert (mem / "MEMORY.md").read_text(encoding="utf-8") == "- [Role](user_role.md) — Leads the payments team\n"


def test_the_async_tool_works_with_the_async_runner(tmp_path):
    mem = tmp_path / "mem"
    results, _ = run_script(
        AsyncMemdirMemoryTool(str(mem)),
        [
            {"command": "create", "path": "/memories/notes/todo.txt", "file_text": "one\ntwo\n"},
            {"command": "insert", "path": "/memories/notes/todo.txt", "insert_line": 1, "insert_text": "1.5"},
            {"command": "rename", "old_path": "/memories/notes", "new_path": "/memories/archive"},
            {"command": "delete", "path": "/memories/archive/missing.txt"},
        ],
        client_cls=anthropic.AsyncAnthropic,
    )
    assert [r["content"] for r in results] == [
        "File created successfully at: /memories/notes/todo.txt",
        "The file /memories/notes/todo.txt has been edited.",
        "Successfully renamed /memories/notes to /memories/archive",
        "The path /memories/archive/missing.txt does not exist",
    ]
    assert results[3]["is_error"] is True
    assert (mem / "archive" / "todo.txt").read_text(encoding="utf-8") == "one\n1.5\ntwo\n"


SCRIPT = [
    {"command": "create", "path": "/memories/notes.txt", "file_text": "alpha\nbeta\ngamma\nbeta\n"},
    {"command": "view", "path": "/memories/notes.txt"},
    {"command": "view", "path": "/memories/notes.txt", "view_range": [2, -1]},
    {"command": "str_replace", "path": "/memories/notes.txt", "old_str": "beta", "new_str": "B"},
    {"command": "str_replace", "path": "/memories/notes.txt", "old_str": "zeta", "new_str": "Z"},
    {"command": "str_replace", "path": "/memories/notes.txt", "old_str": "gamma", "new_str": "G"},
    {"command": "str_replace", "path": "/memories/sub", "old_str": "a", "new_str": "b"},
    {"command": "insert", "path": "/memories/notes.txt", "insert_line": 9, "insert_text": "x"},
    {"command": "insert", "path": "/memories/notes.txt", "insert_line": 0, "insert_text": "first\n"},
    {"command": "create", "path": "/memories/sub/deep/file.md", "file_text": "no frontmatter\n"},
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/memories/nope"},
    {"command": "view", "path": "/etc/passwd"},
    {"command": "view", "path": "/memories/../../etc/passwd"},
    {"command": "rename", "old_path": "/memories/notes.txt", "new_path": "/memories/sub/deep/file.md"},
    {"command": "rename", "old_path": "/memories/gone.txt", "new_path": "/memories/new.txt"},
    {"command": "rename", "old_path": "/memories", "new_path": "/memories/x"},
    {"command": "rename", "old_path": "/memories/notes.txt", "new_path": "/memories/sub/notes.txt"},
    {"command": "delete", "path": "/memories"},
    {"command": "delete", "path": "/memories/sub/deep"},
    {"command": "delete", "path": "/memories/sub/deep"},
    {"command": "view", "path": "/memories/sub"},
]


def outcome(tool, command):
    try:
        return tool.call(command)
    except ToolError as exc:
        return f"ERROR: {exc.content}"


def test_results_and_errors_match_the_sdks_reference_implementation(tmp_path):
    reference = BetaLocalFilesystemMemoryTool(str(tmp_path / "ref"))
    ours = MemdirMemoryTool(str(tmp_path / "ours" / "memories"))
    for command in SCRIPT:
        assert outcome(ours, command) == outcome(reference, command), command


def test_index_lines_follow_create_edit_rename_and_delete(tmp_path):
    mem = tmp_path / "mem"
    tool = MemdirMemoryTool(str(mem))
    index = mem / "MEMORY.md"
    tool.call({"command": "create", "path": "/memories/user_role.md", "file_text": ROLE})
    result = tool.call(
        {"command": "str_replace", "path": "/memories/user_role.md", "old_str": "payments", "new_str": "billing"}
    )
    assert result.endswith("\n/memories/MEMORY.md was updated to match.")
    assert index.read_text(encoding="utf-8") == "- [Role](user_role.md) — Leads the billing team\n"
    tool.call({"command": "rename", "old_path": "/memories/user_role.md", "new_path": "/memories/people/role.md"})
    assert index.read_text(encoding="utf-8") == "- [Role](people/role.md) — Leads the billing team\n"
    tool.call({"command": "rename", "old_path": "/memories/people", "new_path": "/memories/team_people"})
    assert "(team_people/role.md)" in index.read_text(encoding="utf-8")
    unchanged = tool.call(
        {"command": "insert", "path": "/memories/team_people/role.md", "insert_line": 7, "insert_text": "More."}
    )
    assert unchanged == "The file /memories/team_people/role.md has been edited."
    deleted = tool.call({"command": "delete", "path": "/memories/team_people"})
    assert deleted == "Successfully deleted /memories/team_people\n/memories/MEMORY.md was updated to match."
    assert index.read_text(encoding="utf-8") == ""


def test_a_file_without_name_and_description_gets_no_index_line(tmp_path):
    mem = tmp_path / "mem"
    tool = MemdirMemoryTool(str(mem))
    result = tool.call({"command": "create", "path": "/memories/scratch.md", "file_text": "---\nname: x\n---\nbody\n"})
    assert result == "File created successfully at: /memories/scratch.md"
    assert not (mem / "MEMORY.md").exists()


def test_symlinks_out_of_the_directory_are_refused(tmp_path):
    mem = tmp_path / "mem"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s", encoding="utf-8")
    tool = MemdirMemoryTool(str(mem))
    os.symlink(outside, mem / "link")
    for command in (
        {"command": "view", "path": "/memories/link/secret.txt"},
        {"command": "create", "path": "/memories/link/new.md", "file_text": "x"},
    ):
        with pytest.raises(ToolError) as info:
            tool.call(command)
        assert info.value.content == "Path would escape /memories directory via symlink"
    assert not (outside / "new.md").exists()


def test_memdirs_lock_and_hidden_files_cannot_be_written(tmp_path):
    tool = MemdirMemoryTool(str(tmp_path / "mem"))
    with pytest.raises(ToolError) as info:
        tool.call({"command": "create", "path": "/memories/.memdir.lock", "file_text": "x"})
    assert "hidden" in info.value.content


def test_a_secret_in_team_memory_is_refused_by_the_team_guard(tmp_path, monkeypatch):
    from memdir.config import open_memory_dir, resolve_config

    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    config = resolve_config(str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env)
    tool = MemdirMemoryTool(open_memory_dir(config))
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    with pytest.raises(ToolError) as info:
        tool.call({"command": "create", "path": "/memories/team/ci.md", "file_text": f"token: {token}\n"})
    assert token not in info.value.content
    assert not (tmp_path / "mem" / "team" / "ci.md").exists()


def test_the_tool_declaration_is_the_sdks(tmp_path):
    tool = MemdirMemoryTool(str(tmp_path / "mem"), cache_control={"type": "ephemeral"})
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory", "cache_control": {"type": "ephemeral"}}
    assert json.dumps(tool.to_dict())


def _guarded_tool(tmp_path, **overrides):
    from memdir.config import open_memory_dir, resolve_config

    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), **overrides}
    config = resolve_config(str(tmp_path), memory_dir=str(tmp_path / "mem"), env=env)
    return MemdirMemoryTool(open_memory_dir(config))


def test_renaming_a_private_file_with_a_secret_into_team_is_refused(tmp_path):
    tool = _guarded_tool(tmp_path)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    tool.call({"command": "create", "path": "/memories/ci.md", "file_text": f"token: {token}\n"})
    with pytest.raises(ToolError) as info:
        tool.call({"command": "rename", "old_path": "/memories/ci.md", "new_path": "/memories/team/ci.md"})
    assert token not in info.value.content
    assert (tmp_path / "mem" / "ci.md").exists()
    assert not (tmp_path / "mem" / "team" / "ci.md").exists()


def test_renaming_a_directory_holding_a_secret_into_team_is_refused(tmp_path):
    tool = _guarded_tool(tmp_path)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    tool.call({"command": "create", "path": "/memories/notes/ok.md", "file_text": "fine\n"})
    tool.call({"command": "create", "path": "/memories/notes/deep/ci.md", "file_text": f"token: {token}\n"})
    with pytest.raises(ToolError):
        tool.call({"command": "rename", "old_path": "/memories/notes", "new_path": "/memories/team/notes"})
    assert (tmp_path / "mem" / "notes" / "deep" / "ci.md").exists()
    assert not (tmp_path / "mem" / "team" / "notes").exists()


def test_renaming_a_clean_file_into_team_is_allowed(tmp_path):
    tool = _guarded_tool(tmp_path)
    tool.call({"command": "create", "path": "/memories/ok.md", "file_text": "fine\n"})
    tool.call({"command": "rename", "old_path": "/memories/ok.md", "new_path": "/memories/team/ok.md"})
    assert (tmp_path / "mem" / "team" / "ok.md").read_text(encoding="utf-8") == "fine\n"


def test_a_directory_cannot_be_renamed_into_itself(tmp_path):
    tool = MemdirMemoryTool(str(tmp_path / "mem"))
    tool.call({"command": "create", "path": "/memories/a/x.md", "file_text": "x\n"})
    with pytest.raises(ToolError) as info:
        tool.call({"command": "rename", "old_path": "/memories/a", "new_path": "/memories/a/b"})
    assert "into itself" in info.value.content
    assert (tmp_path / "mem" / "a" / "x.md").exists()


def test_the_index_cannot_be_deleted_or_renamed_in_daily_log_mode(tmp_path):
    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / "MEMORY.md").write_text("- [A](a.md) - a\n", encoding="utf-8")
    (mem / "sub").mkdir()
    (mem / "sub" / "MEMORY.md").write_text("x\n", encoding="utf-8")
    (mem / "x.md").write_text("x\n", encoding="utf-8")
    tool = _guarded_tool(tmp_path, MEMDIR_DAILY_LOG="1")
    for command in (
        {"command": "delete", "path": "/memories/MEMORY.md"},
        {"command": "delete", "path": "/memories/sub"},
        {"command": "rename", "old_path": "/memories/MEMORY.md", "new_path": "/memories/old.md"},
        {"command": "rename", "old_path": "/memories/x.md", "new_path": "/memories/other/MEMORY.md"},
    ):
        with pytest.raises(ToolError) as info:
            tool.call(command)
        assert "read-only" in info.value.content
    assert (mem / "MEMORY.md").read_text(encoding="utf-8") == "- [A](a.md) - a\n"
    assert (mem / "sub" / "MEMORY.md").exists()
    assert not (mem / "other").exists()


def test_create_names_the_memories_that_may_already_say_it_and_refuses_a_copy(tmp_path):
    mem = tmp_path / "mem"
    tool = MemdirMemoryTool(str(mem))
    again = ROLE.replace("name: Role", "name: Role at work").replace("Leads the", "Runs the")
    copy = ROLE.replace("name: Role", "name: Role again")
    results, _ = run_script(
        tool,
        [
            {"command": "create", "path": "/memories/user_role.md", "file_text": ROLE},
            {"command": "create", "path": "/memories/user_role_work.md", "file_text": again},
            {"command": "create", "path": "/memories/user_role_copy.md", "file_text": copy},
        ],
    )
    assert "may already say" not in results[0]["content"]
    note = results[1]["content"].split("\n", 2)[2]
    assert note.startswith(
        "These memories may already say what this file says:\n"
        "- /memories/user_role.md (saved today): Leads the payments team\n"
        "Keep one memory per fact. If this file restates or corrects one of them, put the current fact in that "
        "memory and delete /memories/user_role_work.md;"
    )
    assert (mem / "user_role_work.md").read_text(encoding="utf-8") == again  # saved: nothing is lost
    assert results[2]["is_error"] and "already says this nearly word for word" in results[2]["content"]
    assert not (mem / "user_role_copy.md").exists()
