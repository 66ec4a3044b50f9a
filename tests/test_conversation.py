import json

import pytest

from memdir.conversation import load_conversation, parse_message_json, parse_transcript_lines, render_conversation
from memdir.errors import ConfigError


def line(**entry):
    return json.dumps(entry)


TRANSCRIPT = [
    line(type="user", uuid="u1", parentUuid=None, message={"role": "user", "content": "remember I like tabs"}),
    line(
        type="assistant",
        uuid="a1",
        parentUuid="u1",
        message={
            "id": "msg_1",
            "role": "assistant",
            "usage": {"input_tokens": 100, "output_tokens": 20},
            "content": [
                {"type": "text", "text": "Saving."},
                {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/m/a.md"}},
            ],
        },
    ),
    line(
        type="user",
        uuid="u2",
        parentUuid="a1",
        message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
    ),
    line(type="assistant", uuid="abandoned", parentUuid="u1", message={"role": "assistant", "content": "old branch"}),
    line(
        type="assistant", uuid="side", parentUuid="u2", isSidechain=True, message={"role": "assistant", "content": "x"}
    ),
    line(
        type="assistant",
        uuid="a2",
        parentUuid="u2",
        message={"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ),
    line(type="summary", summary="a title"),
]


def test_the_live_thread_is_rebuilt_from_parent_links():
    messages = parse_transcript_lines(TRANSCRIPT)
    assert [m.uuid for m in messages] == ["u1", "a1", "u2", "a2"]
    assert messages[1].tool_uses()[0].input == {"file_path": "/m/a.md"}
    assert messages[1].usage == {"input_tokens": 100, "output_tokens": 20}
    assert messages[2].tool_results()[0].text == "ok"


def test_a_torn_last_line_is_ignored_but_a_broken_middle_line_is_an_error():
    assert len(parse_transcript_lines([*TRANSCRIPT, '{"type": "user", "uu'])) == 4
    with pytest.raises(ConfigError) as info:
        parse_transcript_lines([TRANSCRIPT[0], "{broken", TRANSCRIPT[1]], source="t.jsonl")
    assert "t.jsonl line 2" in str(info.value)


def test_memdir_message_json_and_loading_by_extension(tmp_path):
    data = {
        "messages": [
            {"role": "user", "content": "hi there"},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        ]
    }
    (tmp_path / "m.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "t.jsonl").write_text("\n".join(TRANSCRIPT), encoding="utf-8")
    assert [m.text for m in load_conversation(str(tmp_path / "m.json"))] == ["hi there", "hello"]
    assert len(load_conversation(str(tmp_path / "t.jsonl"))) == 4
    with pytest.raises(ConfigError):
        parse_message_json({"messages": [{"content": "no role"}]})
    (tmp_path / "bad.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_conversation(str(tmp_path / "bad.json"))


def test_render_shows_text_and_tool_calls_compactly():
    text = render_conversation(parse_transcript_lines(TRANSCRIPT))
    assert "<user>\nremember I like tabs\n</user>" in text
    assert '[tool call Write: {"file_path": "/m/a.md"}]' in text


def test_a_transcript_path_that_is_a_directory_is_a_clear_error(tmp_path):
    import pytest

    from memdir.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        load_conversation(str(tmp_path))
    assert info.value.rule == "transcript"
    assert str(tmp_path) in info.value.message
