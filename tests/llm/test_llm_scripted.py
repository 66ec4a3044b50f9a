from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from memdir.config import read_environment
from memdir.errors import ConfigError, ModelError, ModelOutputError, ModelTimeout
from memdir.llm import (
    ChatRequest,
    Completion,
    Message,
    ScriptedModel,
    ToolCall,
    ToolResult,
    Usage,
    forbid_real_model_calls,
    load_model,
)

SCHEMA = {
    "type": "object",
    "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
    "required": ["selected_memories"],
}


def ask(text: str, **kwargs: object) -> ChatRequest:
    return ChatRequest(system="sys", messages=(Message("user", text),), **kwargs)  # type: ignore[arg-type]


def test_responses_replay_in_order_and_every_request_is_recorded() -> None:
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "a.md", "content": "x"}}]},
            {"text": "done", "usage": {"input_tokens": 3, "output_tokens": 1}},
        ]
    )
    first = model.complete(ask("remember x"))
    assert first.tool_calls == (ToolCall("call_1_1", "Write", {"file_path": "a.md", "content": "x"}),)
    assert first.stop_reason == "tool_use"
    follow_up = ChatRequest(
        system="sys",
        messages=(
            Message("user", "remember x"),
            Message("assistant", tool_calls=first.tool_calls),
            Message("user", tool_results=(ToolResult("call_1_1", "ok"),)),
        ),
    )
    second = model.complete(follow_up)
    assert (second.text, second.usage, second.stop_reason) == ("done", Usage(3, 1), "end_turn")
    assert model.requests == [ask("remember x"), follow_up]
    assert model.remaining == 0


def test_running_past_the_end_of_the_script_says_how_to_fix_it() -> None:
    model = ScriptedModel([{"text": "only one"}])
    model.complete(ask("a"))
    with pytest.raises(ModelError, match=r"1 responses and all were used.*call #2.*add responses"):
        model.complete(ask("b"))
    assert len(model.requests) == 2


def test_json_answers_are_checked_against_the_requested_schema() -> None:
    model = ScriptedModel(
        [
            {"json": {"selected_memories": ["a.md"]}},
            {"text": '{"selected_memories": []}'},
            {"json": {"selected_memories": "a.md"}},
            {"text": "not json"},
        ]
    )
    assert model.complete(ask("q", json_schema=SCHEMA)).json == {"selected_memories": ["a.md"]}
    assert model.complete(ask("q", json_schema=SCHEMA)).json == {"selected_memories": []}
    with pytest.raises(ModelOutputError, match="expected array"):
        model.complete(ask("q", json_schema=SCHEMA))
    with pytest.raises(ModelOutputError, match="not valid JSON"):
        model.complete(ask("q", json_schema=SCHEMA))


def test_scripted_errors_raise_the_same_exceptions_as_real_providers() -> None:
    model = ScriptedModel(
        [
            {"error": "timeout"},
            {"error": "http", "status": 529, "message": "Overloaded"},
            {"error": "garbage"},
        ]
    )
    with pytest.raises(ModelTimeout):
        model.complete(ask("a"))
    with pytest.raises(ModelError, match="HTTP 529: Overloaded"):
        model.complete(ask("b"))
    with pytest.raises(ModelOutputError):
        model.complete(ask("c"))


def test_completion_objects_can_be_scripted_directly() -> None:
    answer = Completion(text="hi", tool_calls=(), usage=Usage(), stop_reason="end_turn")
    assert ScriptedModel([answer]).complete(ask("x")) is answer


def test_a_script_file_loads_through_the_registry_while_real_calls_are_forbidden(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "from file"}]}), encoding="utf-8")
    with forbid_real_model_calls():
        model = load_model(f"scripted:{script}", read_environment({}))
        assert model.spec == f"scripted:{script}"
        assert model.complete(ask("x")).text == "from file"


def test_the_async_path_replays_the_same_script() -> None:
    model = ScriptedModel([{"text": "one"}, {"text": "two"}])

    async def run() -> list[str]:
        return [(await model.acomplete(ask("a"))).text, (await model.acomplete(ask("b"))).text]

    assert asyncio.run(run()) == ["one", "two"]


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{", "cannot read it as UTF-8 JSON"),
        ('{"answers": []}', 'expected {"responses"'),
        ('{"responses": [{"txt": "typo"}]}', "unknown keys ['txt']"),
        ('{"responses": [{"error": "boom"}]}', '"error" must be one of'),
        ('{"responses": [{"tool_calls": [{"input": {}}]}]}', '"tool_calls" must be a list'),
        ('{"responses": [{"usage": {"tokens": 1}}]}', '"usage" must map'),
    ],
)
def test_a_broken_script_is_refused_with_the_file_and_the_problem(tmp_path: Path, content: str, fragment: str) -> None:
    script = tmp_path / "bad.json"
    script.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        ScriptedModel.from_file(script)
    assert fragment in str(info.value)
    assert "bad.json" in str(info.value)


def test_a_missing_script_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_model(f"scripted:{tmp_path / 'nope.json'}", read_environment({}))
