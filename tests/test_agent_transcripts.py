"""Codex CLI and Gemini CLI transcripts read as conversations, without the context hooks added."""

import json

from hypothesis import assume, given
from hypothesis import strategies as st

from memdir.conversation import load_conversation, parse_transcript_lines
from memdir.extract.cursor import session_id_from_transcript
from memdir.model.hook_context import strip_hook_context

HOOK = {"content_item_kinds": ["hooks.additional_context"]}


def codex_line(kind, payload):
    return json.dumps({"timestamp": "2026-11-28T13:06:43.300Z", "type": kind, "payload": payload})


def message(role, text, ident, **extra):
    kind = "output_text" if role == "assistant" else "input_text"
    return codex_line(
        "response_item",
        {"type": "message", "id": ident, "role": role, "content": [{"type": kind, "text": text}], **extra},
    )


CODEX = [
    codex_line("session_meta", {"id": "01a22243", "cwd": "/repo", "cli_version": "0.171.0"}),
    codex_line("event_msg", {"type": "task_started", "turn_id": "t1"}),
    message("developer", "<skills_instructions>\n## Skills", "m0"),
    message("user", "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>", "m1"),
    message("user", "# AGENTS.md instructions for /repo\n\nUse tabs.", "m2"),
    message("developer", "# auto memory\n\nYou have a memory", "m3", internal_chat_message_metadata_passthrough=HOOK),
    message("user", "When can we deploy?", "m4"),
    message("developer", "Memories saved in earlier ...", "m5", internal_chat_message_metadata_passthrough=HOOK),
    codex_line("response_item", {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}',
                                 "call_id": "c1"}),
    codex_line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "deploy.md\n"}),
    message("assistant", "Deploys are on Tuesdays.", "m6"),
    codex_line("event_msg", {"type": "task_complete", "last_agent_message": "Deploys are on Tuesdays."}),
]  # fmt: skip


def test_a_codex_rollout_reads_as_what_the_person_and_the_model_said():
    messages = parse_transcript_lines(CODEX, source="rollout.jsonl")
    assert [(m.role, m.text) for m in messages] == [
        ("user", "When can we deploy?"),
        ("assistant", ""),
        ("user", ""),
        ("assistant", "Deploys are on Tuesdays."),
    ]
    call, result = messages[1].tool_uses()[0], messages[2].tool_results()[0]
    assert (call.name, dict(call.input), call.id) == ("shell", {"command": ["ls"]}, "c1")
    assert (result.tool_use_id, result.text) == ("c1", "deploy.md\n")
    assert [m.uuid for m in messages] == ["m4", "line-9", "line-10", "m6"]


GEMINI = [
    json.dumps({"sessionId": "1b321c4e", "projectHash": "a7f1", "startTime": "t", "kind": "main"}),
    json.dumps({"$set": {"messages": [{"id": "s0", "type": "user",
                                       "content": [{"text": "<session_context>\nThis is the Gemini CLI."}]}]}}),
    json.dumps({"id": "u1", "type": "user", "content": [
        {"text": "<hook_context># auto memory\nYou have a persistent memory</hook_context>\n\nWhen can we deploy?"},
        {"text": "<hook_context>Memories saved in earlier conversations</hook_context>"},
    ]}),
    json.dumps({"$set": {"lastUpdated": "t2"}}),
    json.dumps({"id": "g1", "type": "gemini", "content": "",
                "toolCalls": [{"id": "c1", "name": "read_file", "args": {"path": "deploy.md"}}]}),
    json.dumps({"id": "g1", "type": "gemini", "content": "", "toolCalls": [
        {"id": "c1", "name": "read_file", "args": {"path": "deploy.md"}, "resultDisplay": "Tuesdays"}]}),
    json.dumps({"id": "g2", "type": "gemini", "content": "Deploys are on Tuesdays.", "model": "gemini-2.5-flash"}),
]  # fmt: skip


def test_a_gemini_chat_reads_without_the_hook_context_and_with_each_message_as_last_written(tmp_path):
    path = tmp_path / "session-2026-11-28T13-06-1b321c4e.jsonl"
    path.write_text("\n".join(GEMINI) + "\n", encoding="utf-8")
    messages = load_conversation(str(path))
    assert [(m.uuid, m.role, m.text) for m in messages] == [
        ("u1", "user", "When can we deploy?"),
        ("g1", "assistant", ""),
        ("g1.results", "user", ""),
        ("g2", "assistant", "Deploys are on Tuesdays."),
    ]
    assert messages[2].tool_results()[0].text == "Tuesdays"
    assert session_id_from_transcript(str(path)) == "session-2026-11-28T13-06-1b321c4e"


def test_a_codex_rollout_names_its_session_by_the_id_at_the_end_of_its_file_name():
    name = "/h/.codex/sessions/2026/11/28/rollout-2026-11-28T13-06-43-01a22243-de8a-7282-a7ab-02da73320098.jsonl"
    assert session_id_from_transcript(name) == "01a22243-de8a-7282-a7ab-02da73320098"


def test_a_gemini_rewrite_of_the_whole_message_list_replaces_what_came_before():
    rewound = [
        *GEMINI,
        json.dumps({"$set": {"messages": [{"id": "u9", "type": "user", "content": [{"text": "Start over"}]}]}}),
    ]
    assert [(m.uuid, m.text) for m in parse_transcript_lines(rewound)] == [("u9", "Start over")]


@given(st.text(), st.text())
def test_stripping_hook_context_leaves_the_persons_words(person, inside):
    assume("<hook_context>" not in person and "</hook_context>" not in inside)
    assert strip_hook_context(f"<hook_context>{inside}</hook_context>{person}") == person.strip()
    assert strip_hook_context(f"{person}<hook_context>{inside}") == f"{person}<hook_context>{inside}".strip() or (
        "<hook_context>" in inside
    )
    assert strip_hook_context(person) == person
