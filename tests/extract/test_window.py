import pytest
from _extract_helpers import assistant, turn, user
from hypothesis import given
from hypothesis import strategies as st

from memdir.conversation import Block
from memdir.extract import memory_write_in, window_since

AUTO = "/home/u/.claude/projects/-p/memory/"


def tool(tool_name, **arguments):
    return Block(type="tool_use", id="t", name=tool_name, input=arguments)


@pytest.mark.parametrize(
    ("block", "wrote"),
    [
        (tool("Write", file_path=AUTO + "user_role.md"), True),
        (tool("Edit", file_path=AUTO + "team/project_x.md", old_string="a", new_string="b"), True),
        (tool("Write", file_path=AUTO + "../other.md"), False),  # SPEC §13.9
        (tool("Write", file_path=AUTO.rstrip("/")), False),
        (tool("Write", file_path="/home/u/code/app/main.py"), False),
        (tool("Write", file_path=42), False),
        (tool("Read", file_path=AUTO + "user_role.md"), False),
        (tool("remember", name="Role", content="x"), True),
        (tool("mcp__memdir__forget", file="user_role.md"), True),
        (tool("mcp__github__update", issue=3), False),
        (tool("memory", command="create", path="/memories/a.md", file_text="x"), True),
        (tool("memory", command="rename", old_path="/memories/a.md", new_path="/memories/b.md"), True),
        (tool("memory", command="view", path="/memories"), False),
    ],
)
def test_memory_writes_of_the_main_agent_are_recognised(block, wrote):
    assert (memory_write_in(block, AUTO) is not None) is wrote


def test_the_window_starts_after_the_cursor_and_counts_user_and_assistant_messages():
    messages = [*turn(1), *turn(2), *turn(3)]
    window = window_since(messages, "a1", AUTO)
    assert [m.uuid for m in window.messages] == ["u2", "a2", "u3", "a3"]
    assert window.count == 4 and window.cursor_found and window.last_uuid == "a3"
    assert window_since(messages, "gone", AUTO).count == 6
    assert window_since(messages, None, AUTO).count == 6


def test_only_writes_after_the_cursor_count():
    wrote = assistant("a1", "", ("Write", {"file_path": AUTO + "x.md"}))
    messages = [user("u1", "save it"), wrote, *turn(2)]
    assert window_since(messages, None, AUTO).memory_write is not None
    assert window_since(messages, "a1", AUTO).memory_write is None


def test_a_user_message_quoting_a_write_does_not_count():
    quoted = user("u1", "x")
    object.__setattr__(quoted, "blocks", (tool("Write", file_path=AUTO + "x.md"),))
    assert window_since([quoted], None, AUTO).memory_write is None


@given(st.lists(st.sampled_from(["..", ".", "a", "b.md", "memory", ""]), min_size=1, max_size=6))
def test_a_write_counts_exactly_when_the_normalised_path_stays_inside(parts):
    import posixpath

    path = AUTO + "/".join(parts) + "/f.md"
    inside = posixpath.normpath(path).startswith(AUTO)
    assert (memory_write_in(tool("Write", file_path=path), AUTO) is not None) is inside
